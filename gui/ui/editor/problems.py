"""The "3 problems" pill and the list it opens: every problem in one place, each a way to its field.

After a failed save the list opens by itself; clicking an item opens the group that holds the
field and scrolls to it. Warnings (a tool that is not available now) are listed too, apart,
because they do not stop a save.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from gui.core.sequences import Problem
from gui.i18n import ngettext
from gui.ui.editor.draft import Issue


class ProblemSummary:
    def __init__(self, on_pick: Callable[[Issue], None]) -> None:
        self.on_pick = on_pick
        self.pill = ui.button("", icon="warning", on_click=self.toggle) \
            .props("rounded unelevated no-caps color=amber-2 text-color=amber-10").classes("sd-pill").mark("problems")
        self.pill.set_visibility(False)
        self.panel: ui.column | None = None

    def attach_panel(self) -> None:
        """Draw the (hidden) list where it is called: under the top bar."""
        with ui.column().classes("w-full gap-1 p-3 rounded border border-amber-300 bg-amber-50 dark:bg-amber-950") \
                .mark("problem-list") as self.panel:
            pass
        self.panel.set_visibility(False)

    def toggle(self) -> None:
        if self.panel is not None:
            self.panel.set_visibility(not self.panel.visible)

    def show_issues(self, issues: list[Issue], places: dict[str, str], *, open_panel: bool) -> None:
        errors = [i for i in issues if i.severity == "error"]
        warnings = [i for i in issues if i.severity == "warning"]
        self._pill(len(errors), len(warnings))
        assert self.panel is not None
        self.panel.clear()
        with self.panel:
            for issue in errors + warnings:
                self._item(issue, places.get(issue.key, ""))
        if not issues:
            self.panel.set_visibility(False)
        elif open_panel:
            self.panel.set_visibility(True)

    def show_problems(self, problems: list[Problem]) -> None:
        """In the text view: the count only (the list sits under the text)."""
        errors = sum(1 for p in problems if p.severity == "error")
        self._pill(errors, len(problems) - errors)
        if self.panel is not None:
            self.panel.set_visibility(False)

    def _pill(self, errors: int, warnings: int) -> None:
        if errors:
            text = ngettext("{count} problem", "{count} problems", errors).format(count=errors)
        elif warnings:
            text = ngettext("{count} warning", "{count} warnings", warnings).format(count=warnings)
        else:
            text = ""
        self.pill.set_text(text)
        self.pill.set_visibility(bool(text))

    def _item(self, issue: Issue, place: str) -> None:
        error = issue.severity == "error"
        with ui.row().classes("w-full items-start gap-2 no-wrap cursor-pointer rounded px-1 "
                              "hover:bg-amber-100 dark:hover:bg-amber-900") \
                .on("click", lambda i=issue: self.on_pick(i)).mark("problem-item"):
            ui.icon("error" if error else "info", color="negative" if error else "amber-9").classes("mt-1")
            with ui.column().classes("gap-0"):
                if place:
                    ui.label(place).classes("text-xs text-gray-700 dark:text-gray-300")
                ui.label(issue.message).classes("text-sm").mark("problem-message")
