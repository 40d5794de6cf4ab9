"""The sequence editor as a whole: top bar, visual and text views, saving, and the kept draft.

Why one controller: the views, the problem summary and the draft storage must agree on one draft.
Every edit goes into the draft (`changed`), which is kept in the person's storage at once, so
leaving the page loses nothing. Save asks the door once (`saving`): it validates and stores, and its
answer is what the editor shows: the saved sequence, or its problems at their fields, the cards that
hold them open, the first one scrolled to. After a failed save, the editor re-checks as the person
fixes things, so errors disappear where they are fixed. The text view checks as the person types (see
`live.LiveCheck`): a pause of 0.4 s, then the problems are marked at their characters and listed
below, and the pill counts them. Switching views converts the draft to text and back; a text the
visual view cannot show keeps the person in the text view, saying why.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote

from nicegui import background_tasks, ui

from gui.core.door import Operations
from gui.core.events import Event
from gui.core.sequences import DslError, Renamed, Sequence, load_json_text
from gui.core.tools import ToolInfo, ToolListing
from gui.i18n import N_, _, ngettext
from gui.ui.editor import saving, storage
from gui.ui.editor.baseline import canonical, example_draft, text_document
from gui.ui.editor.context import EditorContext
from gui.ui.editor.convert import from_document, from_sequence
from gui.ui.editor.draft import Issue, SequenceDraft, to_document
from gui.ui.editor.fields import FieldErrors
from gui.ui.editor.groups_view import GroupsView
from gui.ui.editor.help_panel import HelpPanel
from gui.ui.editor.live import LiveCheck
from gui.ui.editor.palette import ToolPalette
from gui.ui.editor.problems import ProblemSummary
from gui.ui.editor.style import CSS
from gui.ui.editor.text_view import TextView
from gui.ui.live import live_events

SAVE_SHORTCUT_JS = """
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 's' || e.key === 'S')) {
    e.preventDefault(); emitEvent('seqdesk-save');
  }
}, true);
"""


RUN_WHY_NEW = N_("Save it first: only a saved sequence can run")
RUN_WHY_CHANGED = N_("Save your changes first: Run uses the saved version")


def page_head() -> None:
    """The editor's CSS and its Ctrl+S listener: call before the page awaits anything. Once NiceGUI
    has sent the page, body HTML is inserted by script, and a `<script>` inserted so never runs
    (Ctrl+S would then do nothing, now and then, depending on how long the awaits took)."""
    ui.add_css(CSS)
    ui.add_body_html(f"<script>{SAVE_SHORTCUT_JS}</script>")


class SequenceEditor:
    def __init__(self, engine: Operations, original: Sequence | None, draft: SequenceDraft, tools: ToolListing, *,
                 restored: dict[str, Any] | None = None, base: SequenceDraft | None = None,
                 saved_names: frozenset[str] = frozenset(), team: bool = False) -> None:
        self.engine = engine
        self.original = original
        self.draft = draft
        # What is saved (or what a new editor opened with): a draft exists only while the content differs.
        self.baseline: dict[str, Any] = to_document(base if base is not None else draft)[0]
        self.key = storage.edit_key(original.name if original else None)
        self.view = "visual"
        self.checking = False  # re-check the visual view as the person edits (after a failed save)
        self.dirty = restored is not None
        self._recheck_handle: asyncio.TimerHandle | None = None
        self._refusal: ui.notification | None = None
        self.live_text: LiveCheck[saving.Outcome] = LiveCheck(self._check_text, self._show_text_check)
        self.fields = FieldErrors()
        known: dict[str, ToolInfo] = {t.name: t for t in tools.tools}
        self.palette = ToolPalette(known)
        self.help = HelpPanel(self.insert_example)
        self.ctx = EditorContext(fields=self.fields, tools=known, changed=self.changed,
                                 pick_tool=self.palette.pick, engine=engine, saved_names=saved_names, team=team)
        self._build(restored)
        live_events(engine, self._tools_changed, types=("tools.changed",), interval=1.0)

    # -- layout ---------------------------------------------------------------------------------
    def _build(self, restored: dict[str, Any] | None) -> None:
        if ui.context.slot.parent is not None:
            ui.context.slot.parent.classes("sd-editor sd-page")
        ui.on("seqdesk-save", self.save)
        if restored is not None:
            with ui.row().classes("w-full items-center gap-2 bg-amber-50 dark:bg-amber-950 rounded p-2") \
                    .mark("restored") as banner:
                ui.icon("history", color="amber-9")
                ui.label(_("Your unsaved changes from before are back.")).classes("text-sm")
                ui.button(_("Discard them"), on_click=lambda: self.discard(banner)).props("flat dense no-caps") \
                    .mark("discard-draft")
        with ui.row().classes("w-full items-center gap-3 no-wrap py-2 sd-wrap"):
            ui.button(icon="arrow_back", on_click=lambda: ui.navigate.to("/")).props("flat round") \
                .tooltip(_("Back to the sequences"))
            self.name = ui.input(_("Sequence name"), value=self.draft.name, on_change=self._set_name) \
                .classes("grow text-lg sd-full").mark("seq-name")
            self.fields.register("seq.name", self.name)
            self.summary = ProblemSummary(self.focus_issue)
            self.tabs = ui.tabs(on_change=self._view_changed).props("dense no-caps inline-label")
            with self.tabs:
                visual_tab = ui.tab("visual", _("Visual"), icon="view_agenda").mark("view-visual")
                text_tab = ui.tab("text", _("Text"), icon="data_object").mark("view-text")
            ui.button(icon="help_outline", on_click=self.help.open).props("flat round").tooltip(_("Help")) \
                .mark("help")
            self.save_button = ui.button(_("Save"), icon="save", on_click=self.save).props("no-caps") \
                .mark("save").tooltip(_("Save (Ctrl+S)"))
            with ui.button(_("Run"), icon="play_arrow", on_click=self.run).props("no-caps outline").mark("run") \
                    as self.run_button:
                self.run_tip = ui.tooltip("")
        self.run_why = ui.label("").classes("w-full text-right text-sm text-gray-700 dark:text-gray-300 -mt-2") \
            .mark("run-why")
        self.renamed_note = ui.label("").classes("w-full text-sm text-gray-800 dark:text-gray-200 "
                                                 "bg-blue-50 dark:bg-blue-950 rounded p-2").mark("renamed-note")
        self.renamed_note.set_visibility(False)
        self.summary.attach_panel()
        with ui.page_sticky(position="bottom-right", x_offset=24, y_offset=24).classes("z-20"):
            fab = ui.button(icon="save", on_click=self.save).props("fab color=primary") \
                .tooltip(_("Save (Ctrl+S)")).mark("save-fab")
            fab.props["aria-label"] = _("Save (Ctrl+S)")
        with ui.tab_panels(self.tabs, value=visual_tab).classes("w-full").props("keep-alive=false") as panels:
            with ui.tab_panel(visual_tab).classes("p-0 gap-3"):
                self.description = ui.textarea(_("What this sequence does"), value=self.draft.description,
                                               on_change=self._set_description) \
                    .props("autogrow").classes("w-full").mark("seq-description")
                self.fields.register("seq.description", self.description)
                self.groups = GroupsView(self.ctx, self.draft, on_example=self.insert_example)
            with ui.tab_panel(text_tab).classes("p-0"):
                self.text = TextView(on_change=self._text_changed)
        self.panels = panels
        if restored is not None and restored.get("view") == "text":
            self.text.set_text(str(restored.get("text") or ""))
            self._switch_to("text")
        self._update_run()

    async def _tools_changed(self, _events: list[Event]) -> None:
        """Tools came, went or changed (an MCP server connected, say): the palette offers them, and
        the tools of the draft that changed get their forms again."""
        changed = self.ctx.set_tools(await self.engine.list_tools())
        if changed:
            self.groups.tools_changed(changed)

    # -- edits ----------------------------------------------------------------------------------
    def _set_name(self, e: Any) -> None:
        self.draft.name = e.value or ""
        self.changed()

    def _set_description(self, e: Any) -> None:
        self.draft.description = e.value or ""
        self.changed()

    def changed(self) -> None:
        self.dirty = self._differs()
        self._persist()
        self._update_run()
        if self.view == "text":
            self.live_text.touch(self.text.text)
        elif self.checking:
            self._schedule_recheck()

    def _text_changed(self) -> None:
        if self.view == "text":
            self.changed()

    def _differs(self) -> bool:
        """Whether what the person sees differs in content from what is saved (not in layout or view)."""
        if self.view == "text":
            doc = text_document(self.text.text)
            return doc is None or canonical(doc) != self.baseline
        return to_document(self.draft)[0] != self.baseline

    def _persist(self) -> None:
        """Keep the draft while it differs from what is saved; a draft equal to it is no draft."""
        if not self.dirty:
            storage.drop(self.key)
            return
        state: dict[str, Any] = {"draft": self.draft.model_dump(mode="json"), "view": self.view}
        if self.view == "text":
            state["text"] = self.text.text
        storage.save(self.key, state)

    def _update_run(self) -> None:
        why = RUN_WHY_NEW if self.original is None else RUN_WHY_CHANGED if self.dirty else ""
        self.run_button.set_enabled(not why)
        self.run_tip.set_text(_(why) if why else _("Run the saved sequence"))
        self.run_why.set_text(_(why) if why else "")
        self.run_why.set_visibility(bool(why))

    def discard(self, banner: ui.element) -> None:
        storage.drop(self.key)
        banner.delete()
        ui.navigate.reload()

    def show_renamed(self, renamed: list[Renamed]) -> None:
        """Say which names a copy got because the originals are taken (kept until the next save)."""
        names = _(", ").join(f"'{r.old}' → '{r.new}'" for r in renamed)  # `renamed_words`, in the person's language
        self.renamed_note.set_text(_("Those names are taken, so these are new: {names} (names are unique across all "
                                     "sequences).").format(names=names) if renamed else "")
        self.renamed_note.set_visibility(bool(renamed))

    async def insert_example(self) -> None:
        draft, renamed = await example_draft(self.engine)

        def apply() -> None:
            self.load_draft(draft)
            self.show_renamed(renamed)
            self.changed()

        if not self.draft.name and not self.draft.groups:
            apply()
            return

        def replace() -> None:
            dialog.close()
            apply()

        with ui.dialog() as dialog, ui.card().classes("sd-page"):
            ui.label(_("Replace what you have built with the example?"))
            with ui.row():
                ui.button(_("Replace it"), on_click=replace).mark("confirm-example")
                ui.button(_("Keep mine"), on_click=dialog.close).props("flat")
        dialog.open()

    def load_draft(self, draft: SequenceDraft) -> None:
        self.draft = draft
        self.name.value = draft.name
        self.description.value = draft.description
        self.groups.load(draft)
        if self.view == "text":
            self.text.set_text(self._document_text())

    # -- views ----------------------------------------------------------------------------------
    def _document_text(self) -> str:
        return json.dumps(to_document(self.draft)[0], ensure_ascii=False, indent=2)

    def _switch_to(self, view: str) -> None:
        self.view = view
        if self.tabs.value != view:
            self.tabs.set_value(view)

    def _view_changed(self, e: Any) -> None:
        target = e.value
        if target == self.view:
            return
        if target == "text":
            self._cancel_recheck()
            self.text.set_text(self._document_text())
            self.text.explain(None)
            self.text.clear_marks()
            self.view = "text"
            self._persist()  # kept only when the content differs from what is saved
            self.live_text.forget()
            if self.checking:  # problems were being shown: show them here at once
                self.live_text.touch(self.text.text)
                background_tasks.create(self.live_text.run(), name="editor live check")
            return
        draft, why = self._text_draft()
        if draft is None:
            self.text.explain(why)
            self.tabs.set_value("text")
            return
        self.live_text.cancel()
        self.view = "visual"
        self.text.explain(None)
        self.load_draft(draft)
        self.dirty = self._differs()
        self._persist()
        self._update_run()
        if self.checking or self.summary.pill.visible:  # keep the pill true to what is now shown
            self._schedule_recheck()

    def _text_draft(self) -> tuple[SequenceDraft | None, str]:
        """The draft the text view holds, or None and why the visual view cannot show it."""
        try:
            doc = load_json_text(self.text.text)
        except DslError as exc:
            self.text.show(exc.problems)
            return None, _("The text is not valid JSON yet, so the visual editor cannot show it: {problems}").format(
                problems="; ".join(p.text(_) for p in exc.problems))
        draft, reasons = from_document(doc)
        if draft is None:
            return None, _("The visual editor cannot show this yet; fix it here first: {reasons}").format(
                reasons="; ".join(reasons))
        return draft, ""

    async def _check_text(self, text: str) -> saving.Outcome:
        return await saving.check_text(self.engine, text, self._original_name)

    def _show_text_check(self, text: str, outcome: saving.Outcome) -> None:
        """A live check of the text view: marks, the list under the text and the pill; nothing else."""
        if self.view != "text" or self.name.is_deleted:
            return
        self.text.show(outcome.problems, text)
        self.summary.show_problems(outcome.problems)
        if any(p.severity == "error" for p in outcome.problems):
            self.checking = True  # switching to the visual view shows them at their fields too

    # -- checking and saving ----------------------------------------------------------------------
    def _schedule_recheck(self) -> None:
        """Check the visual view again half a second after the last edit (not on every key)."""
        self._cancel_recheck()
        self._recheck_handle = asyncio.get_running_loop().call_later(
            0.5, lambda: background_tasks.create(self._recheck(), name="editor recheck"))

    def _cancel_recheck(self) -> None:
        if self._recheck_handle is not None:
            self._recheck_handle.cancel()
            self._recheck_handle = None

    async def _recheck(self) -> None:
        self._recheck_handle = None
        if self.name.is_deleted or self.view == "text":  # the text view checks itself as it changes
            return
        outcome = await saving.check_draft(self.engine, self.draft, self._original_name, self.ctx.tools)
        if self.view == "visual" and not self.name.is_deleted:
            self._show_issues(outcome.issues)

    @property
    def _original_name(self) -> str | None:
        return self.original.name if self.original else None

    def _show_issues(self, issues: list[Issue], *, reveal: bool = False) -> None:
        self.fields.show(issues)
        self.groups.show_counts(issues, expand=reveal)
        self.summary.show_issues(issues, self.groups.places(issues), open_panel=reveal)
        if reveal:
            first = next((i for i in issues if i.severity == "error"), None)
            if first is not None:
                ui.timer(0.1, lambda: self.focus_issue(first), once=True)

    def focus_issue(self, issue: Issue) -> None:
        if self.view == "text":
            return
        self.groups.reveal(issue.group_uid)
        self.fields.focus(issue.key)

    async def save(self) -> None:
        """Save what the person sees: one call to the door, which validates and stores; its answer is shown."""
        if self.view == "text":
            await self._save_text()
            return
        outcome = await saving.save_draft(self.engine, self.draft, self._original_name, self.ctx.tools)
        if outcome.saved is None:
            self._refused(outcome.issues)
            return
        self._show_issues(outcome.issues)  # its warnings
        self.text.clear_marks()
        self._saved(outcome.saved)

    async def _save_text(self) -> None:
        text = self.text.text
        outcome = await saving.save_text(self.engine, text, self._original_name)
        self.text.show(outcome.problems, text)  # its warnings (a tool not available now) stay marked
        self.summary.show_problems(outcome.problems)
        self.live_text.checked(text)
        if outcome.saved is None:
            self.checking = True
            self._not_saved(sum(1 for p in outcome.problems if p.severity == "error"))
            return
        draft, _reasons = from_document(outcome.doc)
        if draft is not None:
            self.draft = draft
            self.groups.load(draft, expand=False)
            self.name.value = draft.name
            self.description.value = draft.description
        self._show_issues([])
        self.summary.show_problems(outcome.problems)
        self._saved(outcome.saved)

    def _refused(self, issues: list[Issue]) -> None:
        self.checking = True
        self._show_issues(issues, reveal=True)
        count = sum(1 for i in issues if i.severity == "error")
        self._not_saved(count)

    def _not_saved(self, count: int) -> None:
        """Say it was not saved; the message goes away as soon as a save succeeds (never both at once)."""
        self._dismiss_not_saved()
        self._refusal = ui.notification(ngettext("Not saved: {n} problem to fix first",
                                                 "Not saved: {n} problems to fix first", count).format(n=count),
                                        type="warning", position="bottom", timeout=5)

    def _dismiss_not_saved(self) -> None:
        if self._refusal is not None and not self._refusal.is_deleted:
            self._refusal.dismiss()
        self._refusal = None

    def _saved(self, sequence: Sequence) -> None:
        """What is saved now is what a draft is compared with: no kept draft, no re-checks, Run can run it."""
        storage.drop(self.key)
        self.original = sequence
        self.key = storage.edit_key(sequence.name)
        self.baseline = to_document(from_sequence(sequence))[0]
        self.dirty = False
        self.checking = False
        self.show_renamed([])
        self._update_run()
        ui.navigate.history.replace(f"/sequences/{quote(sequence.name, safe='')}/edit")
        self._dismiss_not_saved()
        ui.notify(_("Saved '{name}'").format(name=sequence.name), type="positive")

    def run(self) -> None:
        if self.original is not None:
            ui.navigate.to(f"/run?sequence={quote(self.original.name, safe='')}")

