"""Run records and schedules in memory, behind the core's `RunStore` and `ScheduleStore` ports.

Each record is kept as JSON text, as a file would keep it (less the fields at their defaults), so what
comes back is a copy and a value that could not be stored fails here as it would on disk.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterable
from typing import Any

from gui.core.json_text import to_json_text
from gui.core.queries import DEFAULT_LIMIT, Page, check_window, sort_key
from gui.core.runs import RunFilter, RunRecord, RunStatus, Schedule, run_fields


class MemoryRunStore:
    """Keeps each record as JSON text, as a file would: what comes back is a copy, never shared."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[dict[str, Any], str, bool]] = {}

    async def save(self, record: RunRecord) -> None:
        self._items[record.run_id] = (run_fields(record), to_json_text(record, compact=True), record.finished)

    async def save_many(self, records: Iterable[RunRecord]) -> None:
        for record in records:
            await self.save(record)

    async def get(self, run_id: str) -> RunRecord | None:
        item = self._items.get(run_id)
        return RunRecord.model_validate(json.loads(item[1])) if item else None

    async def list(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return (await self.query(limit=limit, offset=offset)).items

    async def running(self) -> builtins.list[RunRecord]:
        return [RunRecord.model_validate(json.loads(r[1])) for r in self._items.values() if not r[2]]

    async def count(self) -> int:
        return len(self._items)

    async def ids_starting(self, prefix: str, limit: int) -> builtins.list[str]:
        return [run_id for run_id in self._items if run_id.startswith(prefix)][:limit]

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
    ) -> Page[RunRecord]:
        check_window(limit, offset)
        wanted = RunFilter(status, sequence, started_from, started_to, text)
        rows = sorted(((sort_key(fields, run_id), text_) for run_id, (fields, text_, _) in self._items.items()
                       if wanted.matches(fields)), reverse=True)
        page = [RunRecord.model_validate(json.loads(t)) for _, t in rows[offset:offset + limit]]
        return Page(page, len(rows))


class MemoryScheduleStore:
    def __init__(self) -> None:
        self._items: dict[str, str] = {}

    async def list(self) -> builtins.list[Schedule]:
        return sorted((Schedule.model_validate_json(t) for t in self._items.values()), key=lambda s: s.created_at)

    async def get(self, schedule_id: str) -> Schedule | None:
        text = self._items.get(schedule_id)
        return Schedule.model_validate_json(text) if text is not None else None

    async def save(self, schedule: Schedule) -> None:
        self._items[schedule.schedule_id] = schedule.model_dump_json()

    async def delete(self, schedule_id: str) -> bool:
        return self._items.pop(schedule_id, None) is not None
