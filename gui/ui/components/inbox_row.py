"""One pending request in the inbox list, like a message in an email client.

Kind icon, verb title, where it comes from, a one-line preview (commands in monospace), its age
and expiry countdown. Bold until opened. It only reports clicks: the page decides what opening
means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.interactions import InteractionRecord
from gui.ui.components import inbox_format as fmt
from gui.ui.components.inbox_countdown import Countdown


class InboxRow(ui.card):
    def __init__(self, record: InteractionRecord, *, seen: bool, selected: bool,
                 on_open: Callable[[str], Any]) -> None:
        super().__init__()
        request = record.request
        self.interaction_id = record.interaction_id
        self.countdown: Countdown | None = None
        kind = fmt.kind(request)
        self.classes("w-full cursor-pointer p-3 gap-1 inbox-row").props("flat bordered")
        self.mark(f"inbox-row inbox-row-{record.interaction_id}")
        self.on("click", lambda: on_open(self.interaction_id))
        with self:
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                ui.icon(fmt.KIND_ICONS[kind], size="sm").classes("text-deep-purple-6").tooltip(fmt.KIND_WORDS[kind])
                self.title = ui.label(fmt.title(request)).classes("text-sm grow truncate")
                ui.label(fmt.age(request.created_at)).classes("text-xs opacity-70 whitespace-nowrap")
            preview = fmt.preview(request)
            if preview:
                text = ui.label(preview).classes("text-sm truncate w-full opacity-80")
                if kind in ("shell", "tool"):
                    text.classes("font-mono")
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                source = " › ".join(fmt.source_parts(request)) or "this app"
                ui.label(source).classes("text-xs opacity-70 grow truncate")
                if request.expires_at is not None:
                    self.countdown = Countdown(request.expires_at)
        self.set_seen(seen)
        self.set_selected(selected)

    def set_seen(self, seen: bool) -> None:
        self.title.classes(remove="font-bold" if seen else "font-medium",
                           add="font-medium" if seen else "font-bold")

    def set_selected(self, selected: bool) -> None:
        if selected:
            self.classes(add="inbox-row-selected")
        else:
            self.classes(remove="inbox-row-selected")
