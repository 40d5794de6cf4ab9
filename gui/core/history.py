"""Pages of history from the stores: runs and requests, newest first, filtered and counted.

The stores answer these queries themselves (`query`): the TinyDB ones from small indexes, never by
reading all of history. These two functions are the engine's only way to ask them.
"""

from __future__ import annotations

from gui.core.interactions import InteractionKind, InteractionRecord, InteractionStatus, InteractionStore
from gui.core.queries import Page
from gui.core.records import RunRecord, RunStatus, RunStore


async def interaction_page(store: InteractionStore, *, status: InteractionStatus | None = None,
                           kind: InteractionKind | None = None, run_id: str | None = None,
                           sequence: str | None = None, tool_name: str | None = None,
                           limit: int = 50, offset: int = 0) -> Page[InteractionRecord]:
    return await store.query(status=status, kind=kind, run_id=run_id, sequence=sequence, tool_name=tool_name,
                             limit=limit, offset=offset)


async def run_page(store: RunStore, *, status: RunStatus | None = None, sequence: str | None = None,
                   started_from: float | None = None, started_to: float | None = None, text: str | None = None,
                   limit: int = 50, offset: int = 0) -> Page[RunRecord]:
    return await store.query(status=status, sequence=sequence, started_from=started_from, started_to=started_to,
                             text=text, limit=limit, offset=offset)
