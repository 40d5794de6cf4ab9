"""The editor's Text tab: switching between it and the visual view, checking the text as it changes,
and saving from it. A part of `SequenceEditor` (gui/ui/editor/view.py), which owns the draft and the
views; this mixin declares what of it the Text tab uses.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import background_tasks, ui

from gui.core.door import Engine
from gui.core.sequences import DslError, Problem, load_json_text
from gui.i18n import _
from gui.ui.editor import saving
from gui.ui.editor.convert import from_document
from gui.ui.editor.draft import Issue, SequenceDraft, to_document
from gui.ui.editor.groups_view import GroupsView
from gui.ui.editor.live import LiveCheck
from gui.ui.editor.problems import ProblemSummary
from gui.ui.editor.text_view import TextView


class TextMode:
    engine: Engine
    draft: SequenceDraft
    view: str
    checking: bool
    dirty: bool
    live_text: LiveCheck[saving.Outcome]
    text: TextView
    tabs: ui.tabs
    summary: ProblemSummary
    groups: GroupsView
    name: ui.input
    description: ui.input

    @property
    def _original_name(self) -> str | None:
        raise NotImplementedError  # SequenceEditor's

    def _persist(self) -> None:
        raise NotImplementedError

    def _update_run(self) -> None:
        raise NotImplementedError

    def _differs(self) -> bool:
        raise NotImplementedError

    def load_draft(self, draft: SequenceDraft) -> None:
        raise NotImplementedError

    def _cancel_recheck(self) -> None:
        raise NotImplementedError

    def _schedule_recheck(self) -> None:
        raise NotImplementedError

    def _not_saved(self, count: int) -> None:
        raise NotImplementedError

    async def _store(self, doc: Any, warnings: list[Issue], *, text_warnings: list[Problem] | None = None) -> None:
        raise NotImplementedError

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

    async def _save_text(self) -> None:
        text = self.text.text
        outcome = await saving.check_text(self.engine, text, self._original_name)
        self.text.show(outcome.problems, text)
        self.summary.show_problems(outcome.problems)
        self.live_text.checked(text)
        if outcome.blocking or outcome.doc is None:
            self.checking = True
            count = sum(1 for p in outcome.problems if p.severity == "error")
            self._not_saved(count)
            return
        draft, _reasons = from_document(outcome.doc)
        if draft is not None:
            self.draft = draft
            self.groups.load(draft, expand=False)
            self.name.value = draft.name
            self.description.value = draft.description
        await self._store(outcome.doc, [], text_warnings=outcome.problems)
