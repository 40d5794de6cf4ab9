"""One ended request in the inbox history: how it ended (icon + word), when, and what was decided.

Expired and cancelled requests stay visible here with their reason, so "why did my step not run?"
has an answer without opening the run.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.asks import InteractionRecord
from gui.i18n import DATA, _
from gui.ui.components.run.link import RunLink, RunOf
from gui.wording import requests as fmt


class HistoryRow(ui.card):
    def __init__(self, record: InteractionRecord, run_of: RunOf | None = None) -> None:
        super().__init__()
        request = record.request
        outcome = fmt.outcome(record)
        kind = fmt.kind(request)
        self.props("flat bordered").classes("w-full p-3 gap-1")
        self.mark(f"history-row history-row-{record.interaction_id}")
        with self:
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                ui.chip(outcome.word, icon=outcome.icon, color=outcome.color, text_color="white").props(
                    "dense square").classes("shrink-0").mark("outcome")
                ui.icon(fmt.KIND_ICONS[kind], size="xs").classes("opacity-70").props(f"title={_(fmt.KIND_WORDS[kind])}")
                ui.label(fmt.title(request)).classes("text-sm font-medium grow truncate")
                when = record.resolved_at or request.created_at
                ui.label(f"{fmt.clock(when)} · {fmt.age(when)}").classes("text-xs opacity-70 whitespace-nowrap")
            preview = fmt.preview(request)
            if preview:
                text = ui.label(preview).classes(f"text-sm truncate w-full opacity-80 {DATA}")
                if kind in ("shell", "tool"):
                    text.classes("font-mono")
            if outcome.details:
                ui.label(outcome.details).classes("text-sm break-words").mark("decided")
            with ui.row().classes("items-center gap-1 text-xs opacity-70"):
                ui.label(" › ".join(fmt.source_parts(request)) or _("this app")).classes(
                    DATA if fmt.source_parts(request) else "")
                if request.turn_id:
                    ui.label("·")
                    RunLink(request.turn_id, f"/run/{request.turn_id}", run_of)
