"""What a retrying tool says: "Retrying · attempt 2 of 3 · next try in 1 s · last error: …".

The record knows the attempt and the last error; only the `tool.retrying` event knows when the next
try starts (`delay`), so the page keeps the latest such event per tool (`RetryInfo`) and the words
are computed from both, with a countdown that moves on every clock tick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gui.core.events import Event, ToolRetrying
from gui.core.runs import ToolRecord
from gui.core.sequences import RETRY_ATTEMPTS
from gui.i18n import _

ToolKey = tuple[int, int]  # (group index, tool index)


@dataclass(frozen=True)
class RetryInfo:
    attempt: int  # the attempt that comes next
    of: int
    next_at: float  # when it starts (epoch seconds)
    error: str | None

    @classmethod
    def from_event(cls, event: Event) -> tuple[ToolKey, RetryInfo] | None:
        if not isinstance(event, ToolRetrying):
            return None
        info = cls(attempt=event.attempt, of=event.of or RETRY_ATTEMPTS, next_at=event.at + event.delay,
                   error=event.error)
        return (event.group, event.tool), info


def is_retrying(tool: ToolRecord, info: RetryInfo | None) -> bool:
    """A running tool that already failed once (the caller keeps the last error while it retries)."""
    return tool.status == "running" and (tool.attempts > 1 or info is not None or tool.error is not None)


def countdown_words(seconds_left: float) -> str:
    if seconds_left <= 0:
        return _("trying again now")
    return _("next try in {seconds} s").format(seconds=max(1, math.ceil(seconds_left - 1e-6)))


def retry_words(tool: ToolRecord, info: RetryInfo | None, now: float, *, prefix: bool = True) -> str:
    """The retry sentence; `prefix=False` leaves out "Retrying · " where a chip already says it."""
    of = info.of if info is not None else RETRY_ATTEMPTS
    parts = [_("Retrying")] if prefix else []
    if info is not None and info.attempt > tool.attempts:  # waiting out the pause before the next try
        parts += [_("attempt {n} of {of}").format(n=info.attempt, of=of), countdown_words(info.next_at - now)]
    elif info is None and tool.attempts <= 1 and tool.error:  # paused, but the page missed the event
        parts += [_("attempt {n} of {of}").format(n=2, of=of), _("next try soon")]
    else:
        parts.append(_("attempt {n} of {of}").format(n=max(tool.attempts, 1), of=of))
    error = tool.error or (info.error if info is not None else None)
    if error:
        parts.append(_("last error: {error}").format(error=error))
    return " · ".join(parts)
