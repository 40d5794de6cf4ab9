"""Run ids as people see them: screens show the first eight characters ("run 0911dd99"), so those
open the run exactly as its whole id does, in an address, over the API and at the terminal.

A prefix that more than one run starts with is never guessed: it is an `AmbiguousRunIdError`
listing the runs it could mean. Prefixes shorter than `MIN_PREFIX` are not looked up at all (two
characters would match half the history and mean nothing to the person who typed them).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from gui.core.errors import Conflict

SHORT = 8  # how many characters of a run id the screens show
MIN_PREFIX = 4  # the shortest prefix that is looked up
MAX_CANDIDATES = 5  # how many matching ids an ambiguity error names


def short_id(run_id: str) -> str:
    return run_id[:SHORT]


def new_run_id() -> str:
    """A new run's id (12 hex digits)."""
    return uuid.uuid4().hex[:12]


class AmbiguousRunIdError(Conflict, LookupError):
    """More than one run's id starts with the prefix; `candidates` names some of them."""

    code = "ambiguous-run-id"

    def __init__(self, prefix: str, candidates: Iterable[str]) -> None:
        self.prefix = prefix
        self.candidates = sorted(candidates)[:MAX_CANDIDATES]
        shown = ", ".join(self.candidates)
        super().__init__(f"the run id '{prefix}' is ambiguous: more than one run starts with it ({shown}); "
                         "give more of its characters")

    @property
    def message(self) -> str:
        return str(self.args[0])


def can_be_prefix(text: str) -> bool:
    """Whether `text` is worth looking up as the start of run ids."""
    return len(text) >= MIN_PREFIX


def pick(prefix: str, ids: Iterable[str]) -> str | None:
    """The one id in `ids` that starts with `prefix` (None: none does); AmbiguousRunIdError for several."""
    matches = sorted({i for i in ids if i.startswith(prefix)})
    if len(matches) > 1:
        raise AmbiguousRunIdError(prefix, matches)
    return matches[0] if matches else None
