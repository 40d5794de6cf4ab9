"""A notice about the saved data, at the top of every page: a damaged file, what was saved from it.

A damaged data file is repaired when the app opens (what still parses is kept, the original moved
aside), and the person must learn of it where they look, not in a log: which file, how many entries
were saved, where the original went. The notice stays on every page until it is dismissed.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from gui.i18n import _


class StoreNotice(ui.card):
    def __init__(self, text: str, on_dismiss: Callable[[], None]) -> None:
        super().__init__()
        self._on_dismiss = on_dismiss
        self.props("flat bordered").classes("w-full p-3 bg-amber-50 dark:bg-amber-950").mark("store-notice")
        with self, ui.row().classes("w-full items-start no-wrap gap-3"):
            ui.icon("report", color="warning").classes("text-2xl")
            with ui.column().classes("gap-1 grow"):
                ui.label(_("Some saved data was damaged")).classes("font-semibold")
                ui.label(text).classes("text-sm break-all").mark("store-notice-text")
            ui.button(_("Dismiss"), on_click=self._dismiss).props(
                "flat no-caps dense").mark("store-notice-dismiss")

    def _dismiss(self) -> None:
        self._on_dismiss()
        self.delete()
