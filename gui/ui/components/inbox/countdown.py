"""The expiry countdown ("4:12 left"): a person should see how long they have without doing sums.

It is one plain element (the icon comes from CSS in the theme, `.seqdesk-countdown`), because a
page shows fifty of them, and it does not run its own timer: the page ticks every visible
countdown once a second. Amber under a minute; always an icon plus words.
"""

from __future__ import annotations

from nicegui import ui

from gui.i18n import _
from gui.wording.requests import now_ms, time_left, urgent


class Countdown(ui.label):
    def __init__(self, expires_at: int) -> None:
        super().__init__("")
        self.expires_at = expires_at
        self.classes("seqdesk-countdown")
        self.mark("countdown")
        self._state = ""
        self.tick()

    def tick(self, now: int | None = None) -> bool:
        """Update the words; returns False once the time is up."""
        now = now if now is not None else now_ms()
        text = time_left(self.expires_at, now)
        if text != self.text:
            self.set_text(text)
        state = "over" if text == _("Expired") else "urgent" if urgent(self.expires_at, now) else "ok"
        if state != self._state:
            self.classes(remove=f"seqdesk-countdown-{self._state}" if self._state else None,
                         add=f"seqdesk-countdown-{state}")
            self._state = state
        return state != "over"
