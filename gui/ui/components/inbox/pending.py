"""The pending requests as a batch of events leaves them: what the inbox draws before it asks the store."""

from __future__ import annotations

from gui.core.asks import InteractionRecord
from gui.core.events import Event, InteractionCreated, InteractionEnded


def pending_after(pending: list[InteractionRecord], events: list[Event]) -> list[InteractionRecord]:
    """`pending` (newest first) as the events leave it: new requests in, ended ones out. Events are
    published once stored, so this is what the store holds, without asking it."""
    by_id = {r.interaction_id: r for r in pending}
    for event in events:
        if isinstance(event, InteractionEnded):
            by_id.pop(event.interaction_id, None)
        elif (isinstance(event, InteractionCreated) and event.record.get("status") == "pending"
              and event.interaction_id not in by_id):
            try:
                by_id[event.interaction_id] = InteractionRecord.model_validate(event.record)
            except ValueError:  # not a record this version reads: the store is asked right after
                continue
    return sorted(by_id.values(), key=lambda r: r.request.created_at, reverse=True)
