"""Schedules in their own small TinyDB file (`schedules.json`, hot documents only: there are few)."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from gui.core.runs import Schedule
from gui.store.adapters import _load, _load_all
from gui.store.hotcold import HotColdStore
from gui.store.writer import Writer


def is_schedule(doc_id: str, doc: Mapping[str, Any]) -> bool:
    """A document of the schedules table (to tell it from a fragment when salvaging)."""
    return doc.get("schedule_id") == doc_id and isinstance(doc.get("sequence"), str)


class TinyScheduleStore:
    """`ScheduleStore` on the writer thread; every save is on disk when it returns."""

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer

    async def list(self) -> builtins.list[Schedule]:
        items = _load_all(Schedule, await self._writer.run(self._table.list_hot))
        return sorted(items, key=lambda s: s.created_at)

    async def get(self, schedule_id: str) -> Schedule | None:
        return _load(Schedule, await self._writer.run(self._table.get, schedule_id))

    async def save(self, schedule: Schedule) -> None:
        await self._writer.run(self._table.put_hot, schedule.schedule_id, schedule.model_dump(mode="json"))

    async def delete(self, schedule_id: str) -> bool:
        return await self._writer.run(self._table.delete, schedule_id)
