"""One pending request in the inbox list, like a message in an email client.

Kind icon, verb title, where it comes from, a one-line preview (commands in monospace), its age
and expiry countdown. Bold until opened. It only reports clicks: the page decides what opening
means. A page shows fifty of these, so the static part is one HTML block (escaped) rather than a
dozen elements: the browser draws the list several times faster.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from nicegui import ui

from gui.core.asks import InteractionRecord
from gui.i18n import _
from gui.ui.components.inbox.countdown import Countdown
from gui.wording import requests as fmt


class InboxRow(ui.element):
    def __init__(self, record: InteractionRecord, *, seen: bool, selected: bool,
                 on_open: Callable[[str], Any]) -> None:
        super().__init__("div")
        request = record.request
        self.record = record
        self.interaction_id = record.interaction_id
        self.countdown: Countdown | None = None
        self.classes("w-full flex no-wrap gap-2 p-3 rounded-md cursor-pointer inbox-row")
        self.props(f'role=button tabindex=0 aria-label="{escape(fmt.title(request))}"')
        self.mark(f"inbox-row inbox-row-{record.interaction_id}")
        self.on("click", lambda: on_open(self.interaction_id))
        self.on("keydown.enter", lambda: on_open(self.interaction_id))
        with self:
            self.text = ui.html(self._html(seen), sanitize=False).classes("grow min-w-0")
            with ui.element("div").classes("flex flex-col items-end justify-between shrink-0 gap-1"):
                ui.label(fmt.age(request.created_at)).classes("text-xs opacity-70 whitespace-nowrap")
                if request.expires_at is not None:
                    self.countdown = Countdown(request.expires_at)
        self._seen = seen
        self.set_selected(selected)

    def _html(self, seen: bool) -> str:
        request = self.record.request
        kind = fmt.kind(request)
        weight = "font-medium" if seen else "font-bold"
        preview = fmt.preview(request)
        mono = " font-mono" if kind in ("shell", "tool") else ""
        source = " › ".join(fmt.source_parts(request)) or _("this app")
        lines = [
            f'<div class="flex items-center no-wrap gap-2"><i class="q-icon notranslate material-icons '
            f'text-deep-purple-6" style="font-size:22px" aria-hidden="true" title="{escape(_(fmt.KIND_WORDS[kind]))}">'
            f'{fmt.KIND_ICONS[kind]}</i><span class="text-sm truncate {weight}">{escape(fmt.title(request))}'
            "</span></div>",
        ]
        if preview:
            lines.append(f'<div class="text-sm truncate opacity-80 mt-1{mono}">{escape(preview)}</div>')
        lines.append(f'<div class="text-xs truncate opacity-70 mt-1">{escape(source)}</div>')
        return "".join(lines)

    def set_seen(self, seen: bool) -> None:
        if seen != self._seen:
            self._seen = seen
            self.text.set_content(self._html(seen))

    def set_selected(self, selected: bool) -> None:
        if selected:
            self.classes(add="inbox-row-selected")
        else:
            self.classes(remove="inbox-row-selected")
