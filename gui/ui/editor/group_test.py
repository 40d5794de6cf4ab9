""""Test this group": run one group of the draft with sample inputs, its results shown beside it.

Why through the door's `start_document`: the test is a real run of a one-group document, so every
approval is still asked (in the Inbox and the run's page, as for any run), its record is kept with
the others, and nothing here reaches past the engine. The draft need not be saved: the document is
checked against the tools only, like a file given to `seqdesk run`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from nicegui import ui

from gui.core.door import Operations
from gui.core.events import Event
from gui.core.people import RUNNER
from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.core.sequences import DslError, SlotType
from gui.core.tools import ToolInfo
from gui.i18n import DATA, N_, _
from gui.ui.components.run.args_form import RunArgsForm
from gui.ui.editor.draft import GroupDraft, Issue, SequenceDraft, group_document, local_issues, to_document
from gui.ui.editor.issues import problem_issues
from gui.ui.live import live_events
from gui.ui.signed_in import may
from gui.wording.glossary import NOTHING, plain
from gui.wording.outcomes import core_words, run_error_words

TOOL_WORDS: dict[str, tuple[str, str, str]] = {  # status -> (icon, colour, words; N_: translated where shown)
    "queued": ("radio_button_unchecked", "grey-8", N_("Not started yet")),
    "running": ("autorenew", "primary", N_("Running")),
    "waiting": ("front_hand", "deep-purple-6", N_("Waiting for you")),
    "succeeded": ("check_circle", "positive", N_("Succeeded")),
    "failed": ("cancel", "negative", N_("Failed")),
    "skipped": ("remove", "grey-8", N_("Skipped")),
    "degraded": ("remove_circle_outline", "amber-9", N_("Skipped: not available")),
    "cancelled": ("stop_circle", "grey-8", N_("Stopped")),
}
RUN_WORDS = {"running": N_("Running…"), "succeeded": N_("The test succeeded"),
             "degraded": N_("The test finished, incomplete"), "failed": N_("The test failed"),
             "stopped": N_("The test was stopped"), "interrupted": N_("The test was interrupted")}
_SKIPPED = re.compile(r"^its condition `(?P<when>.*)` is false$", re.S)


def test_document(group: GroupDraft) -> dict[str, Any]:
    """The group alone as a sequence (named after it), ready for `start_document`."""
    return {"name": f"{group.name or 'Unnamed group'} (test)", "description": "A test from the editor",
            "groups": [group_document(group)]}


def shown(value: Any) -> str:
    """A result as a person reads it: text as it is, other values as indented JSON, never `null`."""
    if value is None:
        return NOTHING
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)


def _typed(form: RunArgsForm) -> dict[str, Any]:
    """What was typed in the sample fields so far, as values the form can show again."""
    out: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = field.value
        if form.inputs[name] in (SlotType.ARRAY, SlotType.OBJECT):
            try:
                value = json.loads(value or "")
            except json.JSONDecodeError:
                continue
        out[name] = value
    return out


class GroupTest(ui.column):
    """Sample inputs, a Run button and the results of the last test, inside the group's card."""

    def __init__(self, engine: Operations, group: GroupDraft, tools: Mapping[str, ToolInfo]) -> None:
        super().__init__()
        self.classes("w-full gap-2 rounded border border-gray-300 dark:border-gray-600 p-3").mark("group-test")
        self.engine, self.group, self.tools = engine, group, tools
        self.run_id: str | None = None
        self.samples: dict[str, Any] = {}
        self.form: RunArgsForm | None = None
        with self:
            with ui.row().classes("w-full items-center gap-2"):
                ui.icon("science", color="primary").classes("text-xl")
                ui.label(_("Test this group")).classes("font-medium")
                ui.label(_("Runs only this group, with sample inputs; commands still ask you first.")) \
                    .classes("text-sm text-gray-700 dark:text-gray-300")
            self.form_box = ui.column().classes("w-full gap-1")
            with ui.row().classes("items-center gap-2"):
                self.run_button = ui.button(_("Run the test"), icon="play_arrow", on_click=self.start) \
                    .props("no-caps outline").mark("test-run")
                self.open_link = ui.link(_("Open it on the run's page"), "#").classes("text-sm").mark("test-open")
                self.open_link.set_visibility(False)
            self.results = ui.column().classes("w-full gap-1").mark("test-results")
        self.refresh_inputs()
        live_events(engine, self._on_events, types=("run.", "group.", "tool.", "interaction."))

    def refresh_inputs(self) -> None:
        """One sample field per declared input (what was typed is kept when the inputs change)."""
        if self.form is not None:
            self.samples.update(_typed(self.form))
        self.form_box.clear()
        inputs = {n: SlotType(t) for n, t in self.group.declared("in").items()}
        with self.form_box:
            if inputs:
                ui.label(_("Sample inputs")).classes("text-sm font-medium")
            self.form = RunArgsForm(inputs, self.samples)

    async def start(self) -> None:
        if any(i.severity == "error" and i.group_uid == self.group.uid for i in local_issues_of(self.group)):
            self._say(_("Fix the problems marked in this group first."), "warning")
            return
        args = self.form.values() if self.form is not None else {}
        if args is None:
            return
        self.samples.update(args)
        if not may(RUNNER):  # a test runs the group's commands: it needs the runner role too
            return
        try:
            record = await self.engine.start_document(test_document(self.group), args)
        except DslError as exc:
            draft = SequenceDraft(groups=[self.group])
            mapping = to_document(draft)[1]
            self._problems([i.message for p in exc.problems if p.severity == "error"
                            for i in problem_issues(p, draft, mapping, self.tools)])
            return
        self.run_id = record.run_id
        self.open_link.props(f"href=/run/{record.run_id}")
        self.open_link.set_visibility(True)
        self._draw(record)

    async def _on_events(self, events: list[Event]) -> None:
        if self.run_id is None or self.is_deleted:
            return
        if not any(e.run_id == self.run_id or e.type.startswith("interaction.") for e in events):
            return
        record = await self.engine.get_run(self.run_id)
        if record is not None and not self.is_deleted:
            self._draw(record)

    # -- drawing -------------------------------------------------------------------------------
    def _say(self, text: str, kind: str) -> None:
        self.results.clear()
        with self.results:
            ui.label(text).classes("text-sm " + ("text-amber-900 dark:text-amber-200" if kind == "warning" else ""))

    def _problems(self, messages: list[str]) -> None:
        self.results.clear()
        with self.results:
            ui.label(_("The test did not start:")).classes("text-sm font-medium").mark("test-problem")
            for message in messages:
                ui.label(message[:1].upper() + message[1:]).classes("text-sm text-red-800 dark:text-red-300")

    def _draw(self, record: RunRecord) -> None:
        self.results.clear()
        with self.results:
            status = _(RUN_WORDS[record.status]) if record.status in RUN_WORDS else record.status
            ui.label(status).classes("font-medium").mark("test-status")
            group = record.groups[0] if record.groups else None
            if group is not None:
                self._group(group)
            if record.finished and record.outputs:
                ui.label(_("It gives back")).classes("text-sm font-medium")
                for name, value in record.outputs.items():
                    with ui.row().classes("w-full items-start gap-2 no-wrap").mark(f"test-output-{name}"):
                        ui.label(name).classes(f"text-sm font-medium shrink-0 {DATA}")
                        ui.label(shown(value)).classes(f"text-sm whitespace-pre-wrap break-all font-mono {DATA}")
            if record.error and record.status != "succeeded":
                ui.label(plain(run_error_words(record.error))).classes("text-sm text-red-800 dark:text-red-300")

    def _group(self, group: GroupRecord) -> None:
        if group.status == "skipped":
            ui.label(_("Skipped: {reason}").format(reason=_reason(group.reason))).classes("text-sm")
        for tool in group.tools:
            self._tool(tool)

    def _tool(self, tool: ToolRecord) -> None:
        icon, color, words = TOOL_WORDS.get(tool.status, ("help_outline", "grey-8", tool.status))
        if tool.denied:
            icon, color, words = "block", "amber-9", N_("Not approved")
        with ui.row().classes("w-full items-start gap-2 no-wrap").mark(f"test-tool-{tool.index + 1}"):
            ui.icon(icon, color=color).classes("text-lg shrink-0")
            with ui.column().classes("gap-0 min-w-0"):
                with ui.row().classes("gap-1 items-baseline no-wrap"):  # the tool's name is data
                    ui.label(f"{tool.index + 1}. {tool.tool}").classes(f"text-sm {DATA}")
                    ui.label(f"· {_(words)}" if tool.status in TOOL_WORDS or tool.denied else f"· {words}") \
                        .classes("text-sm")
                if tool.status == "waiting":
                    link = f"/inbox/{tool.interaction_id}" if tool.interaction_id else "/inbox"
                    ui.link(_("Answer it in the Inbox"), link).classes("text-sm").mark("test-inbox")
                elif tool.error:
                    ui.label(plain(core_words(tool.error))).classes("text-sm text-red-800 dark:text-red-300")
                elif tool.status == "succeeded":
                    ui.label(shown(tool.result)).classes(f"text-sm whitespace-pre-wrap break-all font-mono {DATA}")


def _reason(reason: str | None) -> str:
    """Why the group was skipped, in the person's language (the core's reason, its `$args.` as ⤷)."""
    if not reason:
        return _("its condition did not hold")
    match = _SKIPPED.match(reason)
    if match is not None:
        return plain(_("its condition `{condition}` is false").format(condition=match["when"]))
    return plain(core_words(reason))


def local_issues_of(group: GroupDraft) -> list[Issue]:
    return local_issues(SequenceDraft(groups=[group]))
