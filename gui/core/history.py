"""Pages of history from the stores: runs and requests, newest first, filtered and counted.

The stores answer these queries themselves (`query`): the TinyDB ones from small indexes, never by
reading all of history. These two functions are the engine's only way to ask them.
"""

from __future__ import annotations

from typing import Any

from gui.core.interactions import InteractionKind, InteractionRecord, InteractionStatus, InteractionStore
from gui.core.operations import Page
from gui.core.records import RunRecord, RunStatus, RunStore


async def interaction_page(store: InteractionStore, *, status: InteractionStatus | None = None,
                           kind: InteractionKind | None = None, run_id: str | None = None,
                           sequence: str | None = None, tool_name: str | None = None,
                           limit: int = 50, offset: int = 0) -> Page[InteractionRecord]:
    query: Any = getattr(store, "query", None)
    if query is not None:
        items, total = await query(status=status, kind=kind, run_id=run_id, sequence=sequence,
                                   tool_name=tool_name, limit=limit, offset=offset)
        return Page(list(items), total)
    chosen = [r for r in await store.list(status)
              if (kind is None or r.request.kind == kind) and (run_id is None or r.request.turn_id == run_id)
              and (sequence is None or r.request.sequence_name == sequence)
              and (tool_name is None or getattr(r.request.source, "tool_name", None) == tool_name)]
    chosen.sort(key=lambda r: (r.request.created_at, r.interaction_id), reverse=True)
    return Page(chosen[offset:offset + limit], len(chosen))


async def run_page(store: RunStore, *, status: RunStatus | None = None, sequence: str | None = None,
                   started_from: float | None = None, started_to: float | None = None, text: str | None = None,
                   limit: int = 50, offset: int = 0) -> Page[RunRecord]:
    query: Any = getattr(store, "query", None)
    if query is not None:
        items, total = await query(status=status, sequence=sequence, started_from=started_from,
                                   started_to=started_to, text=text, limit=limit, offset=offset)
        return Page(list(items), total)
    if all(v is None for v in (status, sequence, started_from, started_to, text)):
        records = await store.list(limit, offset)
        count: Any = getattr(store, "count", None)
        return Page(records, await count() if count is not None else offset + len(records))
    everything = await store.list(10**9, 0)
    chosen = [r for r in everything
              if (status is None or r.status == status) and (sequence is None or r.sequence == sequence)
              and (started_from is None or r.created_at >= started_from)
              and (started_to is None or r.created_at < started_to)
              and (text is None or text.casefold() in r.sequence.casefold())]
    return Page(chosen[offset:offset + limit], len(chosen))
