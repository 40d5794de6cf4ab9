"""Durations as people write them in a group's `timeout`: `500ms`, `30s`, `2m`, `1h`, `1m30s`."""

from __future__ import annotations

import re

from gui.core.errors import Invalid
from gui.core.marks import N_, sentence

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
# Beyond any real wait, and past it the deadline of a request overflows (`1e400s` is infinite).
MAX_SECONDS = 365 * 24 * 3600.0


class DurationError(Invalid):
    """Not a duration; `str()` is the English, `words` the template a screen words in its language."""

    def __init__(self, template: str, **params: object) -> None:
        self.words = sentence(template, **params)
        super().__init__(self.words.render())


def parse_duration(text: str) -> float:
    """Seconds in `text`; ValueError with a readable message when it is not a positive duration."""
    stripped = text.strip()
    pos, total = 0, 0.0
    for match in _PART.finditer(stripped):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if not stripped or pos != len(stripped):
        raise DurationError(N_("'{text}' is not a duration: write a number and a unit, like 500ms, 30s, 2m or 1h"),
                            text=text)
    if total <= 0:
        raise DurationError(N_("'{text}' is not a positive duration: a time limit must be more than zero"), text=text)
    if not total <= MAX_SECONDS:
        raise DurationError(N_("'{text}' is too long: a time limit is at most a year (8760h)"), text=text)
    return total


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    if seconds < 60 or seconds % 60:
        return f"{seconds:g}s"
    if seconds % 3600:
        return f"{seconds / 60:g}m"
    return f"{seconds / 3600:g}h"
