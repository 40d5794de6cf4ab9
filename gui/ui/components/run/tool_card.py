"""One tool of a run as a card: its state, how long it took, and what came of it.

A card redraws its body only when what it shows changes (state, error, attempt, request); while
the tool runs, only the elapsed-time label moves. That is what keeps a group of 200 parallel tools
cheap to watch. A tool waiting for a person is violet, with "Answer here" (the request opens beside
the run) and a link to it in the inbox. A line under the name says what the tool does ("Run:
uptime"); one that did not succeed says why in words ("Denied by you: …", "Stopped by you",
"Stopped: the app was closed").
`slot_area` is where other features add their own parts to a card (a progress bar, …).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.runs import ToolRecord
from gui.i18n import DATA, _, ngettext
from gui.ui.components.inbox.changed_view import ChangedByYou
from gui.ui.components.inbox.edit import STRUCK
from gui.ui.components.run.result_media import media_preview
from gui.ui.components.run.retry import RetryInfo, ToolKey, is_retrying, retry_words
from gui.ui.components.run.status import StatusChip, duration_words, preview, tool_state
from gui.ui.components.run.summary import tool_summary
from gui.ui.components.run.tool_progress import ToolProgressBar
from gui.ui.components.run.value import ValueView
from gui.wording.changes import asked_words, value_text
from gui.wording.outcomes import outcome_words

SELECTED = "outline outline-2 outline-blue-500 dark:outline-blue-400"
MUTED = "text-xs text-gray-600 dark:text-gray-400"
Answer = Callable[[str], None]  # opens the request (its id) to be answered where the person is


def inbox_path(interaction_id: str) -> str:
    return f"/inbox/{interaction_id}"


def slot_words(tool: ToolRecord) -> str:
    """Where the tool's result goes, as true as the tool's state: saved once it succeeded, still to be
    saved while it has not ended, and nothing saved when it ended any other way (the output stays empty)."""
    if tool.status == "succeeded":
        return _("saved to “{name}”").format(name=tool.as_)
    if tool.status in ("queued", "running", "waiting"):
        return _("its result goes to “{name}”").format(name=tool.as_)
    return _("nothing saved to “{name}”").format(name=tool.as_)


def asked_of(tool: ToolRecord) -> str | None:
    """What was asked of the arguments the person changed in the approval (None: nothing changed).
    The card's summary ("Run: uptime -p") says what ran; the detail shows both side by side."""
    if tool.original_args is None:
        return None
    if isinstance(tool.original_args, dict) and isinstance(tool.args, dict):
        return asked_words(tool.original_args, tool.args)
    return value_text(tool.original_args)


def changed_view(tool: ToolRecord, marker: str) -> None:
    """The change the person made in the approval, both texts; as values when they are not objects."""
    if isinstance(tool.original_args, dict) and isinstance(tool.args, dict):
        ChangedByYou(tool.original_args, tool.args).mark(f"changed-by-you {marker}")
    else:
        ValueView(_("Before you edited them in the approval"), tool.original_args).mark(marker)


def elapsed_words(tool: ToolRecord, now: float) -> str:
    if tool.started_at is None:
        return ""
    if tool.status == "waiting" and tool.waits and tool.waits[-1][1] is None:
        return _("waiting for {time}").format(time=duration_words(now - tool.waits[-1][0]))
    if tool.finished_at is None:
        if tool.status not in ("running", "waiting"):
            return ""  # it ended without an end time (the app died while it ran): how long is not known
        return _("running for {time}").format(time=duration_words(now - tool.started_at))
    waited = sum((end or tool.finished_at) - start for start, end in tool.waits)
    took = _("took {time}").format(time=duration_words(tool.finished_at - tool.started_at - waited))
    return took + (_(" + {time} waiting for you").format(time=duration_words(waited)) if waited >= 0.05 else "")


class ToolCard(ui.card):
    """A tool's card; `show(record, now)` updates it in place. `detail` adds args as sent and the full result.

    Its elements are made once and then only re-texted or hidden: creating and deleting elements is
    what a page of many live cards cannot afford on every refresh.
    """

    def __init__(self, tool: ToolRecord, *, detail: bool = False, now: float = 0.0, key: ToolKey | None = None,
                 on_select: Callable[[ToolKey], None] | None = None, retry: RetryInfo | None = None,
                 on_answer: Answer | None = None, planned: Any = None) -> None:
        super().__init__()
        self.classes("w-full min-w-0 gap-1 p-3").props("flat bordered")
        self._planned = planned  # the arguments as the sequence writes them, until the real ones are known
        self.detail = detail
        self.tool_key = key
        self.selected = False
        self._on_answer = on_answer
        self._asking: str | None = None
        self._key: tuple[Any, ...] | None = None
        self._note_class = ""
        if key is not None and on_select is not None:
            self.classes("cursor-pointer hover:shadow-md").props('tabindex=0 role=button aria-pressed=false '
                                                                 'aria-label="' + _("Show details of {tool}").format(
                                                                     tool=tool.tool) + '"')
            self.on("click", lambda: on_select(key))
            self.on("keydown.enter", lambda: on_select(key))
            self.mark(f"tool-{key[0]}-{key[1]}")
        with self:
            # wraps: in a narrow card the state goes under the name rather than cutting the name short
            with ui.row().classes("w-full items-center gap-x-2 gap-y-0"):
                ui.label(f"{tool.index + 1}.").classes("text-gray-500 dark:text-gray-400")
                ui.label(tool.tool).classes(f"font-mono font-medium truncate min-w-0 {DATA}")
                if tool.host is not None:  # a team's host runs it
                    ui.label(_("on {host}").format(host=tool.host)).classes(
                        "text-sm text-gray-600 dark:text-gray-400 truncate").mark("tool-host")
                ui.space()
                self.chip = StatusChip(tool_state(tool))
            self._summary = ui.label().classes("text-sm text-gray-800 dark:text-gray-200 break-all line-clamp-2").mark(
                "tool-summary")
            with ui.column().classes("w-full gap-0 text-sm text-amber-900 dark:text-amber-200") \
                    .mark("changed-note") as self._changed:
                with ui.row(wrap=False).classes("items-center gap-1"):
                    ui.icon("edit", size="xs")
                    ui.label(_("Changed by you, from:"))
                self._changed_from = ui.label().classes(f"font-mono break-all line-clamp-2 {STRUCK} {DATA}").mark(
                    "changed-from")
            self._changed.set_visibility(False)
            self._time = ui.label().classes(MUTED)
            with ui.row().classes("items-center gap-2") as self._ask:
                ui.label(_("Needs your answer")).classes("text-violet-700 dark:text-violet-300 text-sm")
                if on_answer is not None:
                    self._answer = ui.button(_("Answer here"), icon="front_hand", on_click=self._answer_clicked).props(
                        "dense unelevated no-caps color=deep-purple-7").mark("answer-here")
                self._link = ui.link(_("Open in the inbox"), "/inbox").classes(
                    "text-violet-700 dark:text-violet-300 font-medium text-sm").mark("inbox-link")
            self._note = ui.label().classes("text-sm break-words").mark("tool-note")
            self._progress = ToolProgressBar()
            self._saves_to = ui.label().classes(MUTED).mark("tool-saves-to")
            self._saves_to.set_visibility(bool(tool.as_))
            # Beside the built-in parts, other features add theirs here (a progress bar, …).
            self.slot_area = ui.column().classes("w-full gap-1")
            self._extra = ui.column().classes("w-full gap-1")
        self.show(tool, now, retry)

    def set_selected(self, selected: bool) -> None:
        if selected == self.selected:
            return
        self.selected = selected
        if selected:
            self.classes(add=SELECTED)
        else:
            self.classes(remove=SELECTED)
        self.props(f"aria-pressed={'true' if selected else 'false'}")

    @property
    def state(self) -> str | None:
        return self.chip.state

    def show(self, tool: ToolRecord, now: float, retry: RetryInfo | None = None) -> None:
        retrying = is_retrying(tool, retry)
        state = "retrying" if retrying else tool_state(tool)
        self._progress.show(tool)
        words = elapsed_words(tool, now)
        if self._time.text != words:
            self._time.text = words
        retry_note = retry_words(tool, retry, now, prefix=False) if retrying else None
        key = (state, tool.error, tool.reason, tool.interaction_id, tool.attempts, tool.finished_at, retry_note,
               tool.original_args is not None)
        if key == self._key:
            return
        self._key = key
        asked = asked_of(tool)
        self._changed_from.text = asked or ""
        self._changed.set_visibility(asked is not None)
        self.chip.set(state)
        violet = state == "needs_you"
        if violet:
            self.classes(add="border-violet-500 bg-violet-50 dark:bg-violet-950")
        else:
            self.classes(remove="border-violet-500 bg-violet-50 dark:bg-violet-950")
        asking = violet and bool(tool.interaction_id)
        self._asking = tool.interaction_id if asking else None
        if asking and tool.interaction_id:
            self._link.props["href"] = inbox_path(tool.interaction_id)
            self._link.update()
        self._ask.set_visibility(asking)
        summary = tool_summary(tool.tool, tool.args if tool.args is not None else self._planned)
        self._summary.text = summary
        self._summary.set_visibility(bool(summary))
        if tool.as_:
            self._saves_to.text = slot_words(tool)
        text, colour = self._note_for(tool, state, retry_note)
        if colour != self._note_class:
            self._note.classes(remove=self._note_class, add=colour)
            self._note_class = colour
        self._note.text = text
        self._note.set_visibility(bool(text))
        if self.detail and tool.finished_at is not None:
            self._extra.clear()
            with self._extra:
                self._draw_detail(tool)

    def _answer_clicked(self) -> None:
        if self._asking is not None and self._on_answer is not None:
            self._on_answer(self._asking)

    def _note_for(self, tool: ToolRecord, state: str, retry_note: str | None) -> tuple[str, str]:
        if state == "retrying":
            return retry_note or "", "text-blue-700 dark:text-blue-300"
        if state == "failed":
            return outcome_words(tool, state), "text-red-700 dark:text-red-300"
        if state in ("timed_out", "expired", "denied", "declined"):
            return outcome_words(tool, state), "text-gray-800 dark:text-gray-200"
        if state in ("skipped", "degraded", "cancelled", "not_run", "stopped_by_you", "stopped", "interrupted"):
            return outcome_words(tool, state), "text-gray-700 dark:text-gray-300"
        if state == "succeeded" and not self.detail:
            shown = media_preview(tool.result) or preview(tool.result)
            return shown, "font-mono text-gray-800 dark:text-gray-200 break-all"
        return "", ""

    def _draw_detail(self, tool: ToolRecord) -> None:
        if tool.attempts > 1:
            ui.label(ngettext("{n} attempt", "{n} attempts", tool.attempts).format(n=tool.attempts)).classes(MUTED)
        if tool.args is not None:
            ValueView(_("Arguments as sent"), tool.args).mark("card-args")
        if tool.original_args is not None:
            changed_view(tool, "original-args")
        if tool.status == "succeeded":
            ValueView(_("Result"), tool.result).mark("card-result")
        if tool.interaction_id and tool.status != "waiting":
            ui.link(_("Its request in the inbox"), inbox_path(tool.interaction_id)).classes("text-xs")
