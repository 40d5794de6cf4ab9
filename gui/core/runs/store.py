"""Where run records live (`RunStore`, the port every store implements: in memory, a data folder, a
team's database), what its queries filter and sort on (`run_fields`, `RunFilter`), and its refusal of a
run another process took over (`LeaseLost`). The records themselves are `gui.core.runs.records`.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from gui.core.errors import Conflict
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, contains_text
from gui.core.runs.records import RunRecord, RunStatus


class LeaseLost(Conflict):
    """A shared store refused a run's record from this process: the run is held by another process now
    (this one stopped renewing its lease, and the other took the run over). The runner then stops its
    own copy of the run, writing nothing more of it."""

    code = "lease-lost"

    def __init__(self, message: str, run_ids: builtins.list[str]) -> None:
        super().__init__(message)
        self.run_ids = run_ids


class RunStore(Protocol):
    """Where run records live. `save` is durable when it returns.

    On a store several processes share, `save` of a running run this process started (or took over)
    is fenced: once another process has taken the run over, it raises `LeaseLost` and changes nothing.

    `query` pages and filters in the store (see `gui.core.queries`): newest first, and the total.
    `query_texts` is `query` with any record the store vouches for as its JSON text (`StoredText`), for a
    page sent on as JSON; a store that vouches for none gives the records themselves.
    `list` is its first `limit` records after `offset` with no filter. `save_many` is `save` of each
    in turn (an import: the TinyDB store writes finished runs in one go).
    """

    async def save(self, record: RunRecord) -> None: ...

    async def save_many(self, records: Iterable[RunRecord]) -> None: ...

    async def get(self, run_id: str) -> RunRecord | None: ...

    async def list(self, limit: int = 100, offset: int = 0) -> list[RunRecord]: ...

    async def running(self) -> builtins.list[RunRecord]: ...

    async def count(self) -> int: ...

    async def ids_starting(self, prefix: str, limit: int) -> builtins.list[str]:
        """Up to `limit` stored run ids that start with `prefix` (a short id as screens show it)."""
        ...

    async def query(
        self,
        *,
        status: RunStatus | None = None,
        sequence: str | None = None,
        started_from: float | None = None,
        started_to: float | None = None,
        text: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[RunRecord]: ...

    async def query_texts(
        self,
        *,
        status: RunStatus | None = None,
        sequence: str | None = None,
        started_from: float | None = None,
        started_to: float | None = None,
        text: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[RunRecord | StoredText]: ...


@dataclass(frozen=True)
class RunFilter:
    """Which runs a query wants: every given field must hold. `started_from <= created_at <
    started_to` (epoch seconds); `text` is found in the sequence's name, ignoring case."""

    status: RunStatus | None = None
    sequence: str | None = None
    started_from: float | None = None
    started_to: float | None = None
    text: str | None = None

    def matches(self, fields: dict[str, Any]) -> bool:
        created = fields.get("created_at")
        return ((self.status is None or fields.get("status") == self.status)
                and (self.sequence is None or fields.get("sequence") == self.sequence)
                and (self.started_from is None or (isinstance(created, int | float) and created >= self.started_from))
                and (self.started_to is None or (isinstance(created, int | float) and created < self.started_to))
                and (not self.text or contains_text(fields.get("sequence"), self.text)))


def run_fields(record: RunRecord) -> dict[str, Any]:
    """What run queries filter and sort on (the TinyDB store indexes exactly these)."""
    return {"status": record.status, "sequence": record.sequence, "created_at": record.created_at}
