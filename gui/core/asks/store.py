"""Where interactions are kept: the store port (`InteractionStore`) and what a query selects
(`InteractionFilter`, over the fields a record is indexed by: `interaction_fields`, beside the record).
The TinyDB store (`gui.store`) and the in-memory one (`gui.memory`) implement the port."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gui.core.asks.audit import AuditDraft, AuditLog
from gui.core.asks.interactions import (
    ENDED_STATUSES,
    InteractionKind,
    InteractionRecord,
    InteractionStatus,
    InteractionStatusFilter,
)
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText


class InteractionStore(Protocol):
    """Where interactions live. `save` must be durable when it returns (persist before notify).

    `list` gives every record with that status, oldest first (by `created_at`, then id). `query`
    pages and filters in the store (see `gui.core.queries`): newest first, and the total.
    `query_texts` is `query` with any record the store vouches for as its JSON text (`StoredText`), for
    a page sent on as JSON; a store that vouches for none gives the records themselves.
    `save_many` is `save` of each in turn (an import: the TinyDB store writes ended ones in one go);
    `documents`, when given, are the records' JSON forms (`model_dump(mode="json")`, in the same order),
    made already by the caller (ends announced with their records): a store that keeps that form takes
    them instead of dumping each record again, and from then on nobody changes them.
    `save_with` appends a decision (or a step towards one) to the record of decisions `audit`, then
    saves `record`: the entry is durable first, so a decision that took effect is never missing from
    it. A store that shares its writer with `audit` (a data folder's) does both in one trip.
    """

    async def save(self, record: InteractionRecord) -> None: ...

    async def save_with(self, record: InteractionRecord, decision: AuditDraft, audit: AuditLog) -> None: ...

    async def save_many(self, records: Sequence[InteractionRecord],
                        documents: Sequence[dict[str, Any]] | None = None) -> None: ...

    async def get(self, interaction_id: str) -> InteractionRecord | None: ...

    async def list(self, status: InteractionStatus | None = None) -> list[InteractionRecord]: ...

    async def query(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord]: ...

    async def query_texts(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord | StoredText]: ...


@dataclass(frozen=True)
class InteractionFilter:
    """Which interactions a query wants: every given field must be equal (a status of "ended": any
    status but pending)."""

    status: InteractionStatusFilter | None = None
    kind: InteractionKind | None = None
    run_id: str | None = None
    sequence: str | None = None
    tool_name: str | None = None

    def given(self) -> dict[str, str]:
        return {name: value for name, value in vars(self).items() if value is not None}

    def matches(self, fields: dict[str, Any]) -> bool:
        return all(fields.get(name) in ENDED_STATUSES if (name, value) == ("status", "ended")
                   else fields.get(name) == value for name, value in self.given().items())
