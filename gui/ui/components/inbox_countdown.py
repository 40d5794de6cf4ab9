"""The expiry chip ("4:12 left"): a person should see how long they have without doing sums.

It does not run its own timer: the page ticks every visible countdown once a second, so a list of
fifty requests costs one timer, not fifty. Amber under a minute, and always an icon plus words.
"""

from __future__ import annotations

from nicegui import ui

from gui.ui.components.inbox_format import now_ms, time_left, urgent


class Countdown(ui.chip):
    def __init__(self, expires_at: int) -> None:
        super().__init__("", icon="schedule", color=None, text_color=None)
        self.expires_at = expires_at
        self.props("dense square")
        self.mark("countdown")
        self._state = ""
        self.tick()

    def tick(self, now: int | None = None) -> bool:
        """Update the words; returns False once the time is up."""
        now = now if now is not None else now_ms()
        text = time_left(self.expires_at, now)
        if text != self.text:
            self.text = text
        state = "over" if text == "Expired" else "urgent" if urgent(self.expires_at, now) else "ok"
        if state != self._state:
            self._state = state
            if state == "urgent":
                self.classes(remove="inbox-countdown-ok")
                self.props("color=amber-3 text-color=amber-10 icon=hourglass_bottom")
            else:
                self.classes(add="inbox-countdown-ok")
                self.props(remove="color text-color")
                self.props(f"icon={'timer_off' if state == 'over' else 'schedule'}")
        return state != "over"
