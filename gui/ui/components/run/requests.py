"""The requests for a person that one run raised: what was asked, how it ended, a link to it in the inbox.

Words and chips come from `gui.wording.requests`, so a request reads the same here as in the inbox.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.asks import InteractionRecord
from gui.i18n import _
from gui.wording import requests as fmt


class RunRequests(ui.column):
    def __init__(self, records: list[InteractionRecord]) -> None:
        super().__init__()
        self.classes("w-full gap-1")
        with self:
            if not records:
                ui.label(_("This run asked nobody anything.")).classes("text-gray-600 dark:text-gray-400")
            for record in sorted(records, key=lambda r: r.request.created_at):
                self._row(record)

    @staticmethod
    def _row(record: InteractionRecord) -> None:
        request = record.request
        result = fmt.outcome(record)
        with ui.row(wrap=False).classes(
                "w-full items-center gap-3 "
                "py-1 border-b border-gray-100 dark:border-gray-800").mark(
                f"request-{record.interaction_id}"):
            ui.icon(fmt.KIND_ICONS[fmt.kind(request)]).classes("text-gray-600 dark:text-gray-400")
            with ui.column().classes("gap-0 min-w-0 grow"):
                ui.label(fmt.title(request)).classes("font-medium")
                ui.label(fmt.preview(request)).classes("text-sm font-mono text-gray-700 dark:text-gray-300 truncate")
                if result.details:
                    ui.label(result.details).classes("text-xs text-gray-600 dark:text-gray-400")
            ui.label(fmt.clock(request.created_at)).classes(
                    "text-sm text-gray-600 "
                    "dark:text-gray-400 whitespace-nowrap")
            ui.chip(result.word, icon=result.icon, color=result.color, text_color="white").props("dense")
            ui.link(_("Open"), f"/inbox/{record.interaction_id}").classes("text-sm")
