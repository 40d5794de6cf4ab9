"""Run records and schedules in memory, behind the core's `RunStore` and `ScheduleStore` ports.

A save keeps a snapshot of the record: each group's and tool's fields copied as they are then, their
lists and JSON values (arguments, results, outputs) copied too, so no later change to the live record
reaches what was stored (a copy of a run of 1,000 tools costs less than half its JSON text). Its JSON
text, as a file would keep it (less the fields at their defaults), is made once something reads it,
and each read gives back a new record from that text. A record holding a value that is not plain JSON
is written as text at once, so that a value that could not be stored fails here as it would on disk.
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gui.core.json_text import to_json_text
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, check_window, sort_key
from gui.core.runs import (
    GroupRecord,
    RunFilter,
    RunRecord,
    RunStatus,
    Schedule,
    ToolRecord,
    paused_collection,
    run_fields,
)

_SCALARS = frozenset({str, int, bool, type(None)})
_NOT_PLAIN = "a value that is not plain JSON"


def _plain_copy(value: Any) -> Any:
    """A copy of a plain JSON value (exact types, as `is_plain_json` reads them); ValueError otherwise
    (the record is then written as text at once)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        raise ValueError(_NOT_PLAIN)
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) is not str:
                raise ValueError(_NOT_PLAIN)
            copied[key] = item if type(item) in _SCALARS else _plain_copy(item)
        return copied
    if kind is list:
        return [_plain_copy(item) for item in value]
    raise ValueError(_NOT_PLAIN)


# A record's, a group's and a tool's fields are kept as the list of their values (a list of 25 values takes a
# third of a dict of them: a waiting run's copy 2.1 -> 1.1 KB, as fast to make). A model's `__dict__` holds its
# fields in the order its class declares them, however it was made (validated, `model_construct`, a copy,
# `ToolRecord.queued`, which fills in the defaults in that order): the values are read back by that order.
_RUN_KEYS, _GROUP_KEYS, _TOOL_KEYS = (tuple(model.model_fields) for model in (RunRecord, GroupRecord, ToolRecord))
_R_ARGS, _R_OUTPUTS, _R_GROUPS = (_RUN_KEYS.index(name) for name in ("args", "outputs", "groups"))
_G_ARGS, _G_OUTPUTS, _G_TOOLS = (_GROUP_KEYS.index(name) for name in ("args", "outputs", "tools"))
_T_ARGS, _T_RESULT, _T_ORIGINAL, _T_WAITS, _T_LOG = (
    _TOOL_KEYS.index(name) for name in ("args", "result", "original_args", "waits", "log"))

_Values = list[Any]
_Snapshot = tuple[_Values, list[tuple[_Values, list[_Values]]]]


def _snapshot(record: RunRecord) -> _Snapshot:
    """The record's fields, its groups' and tools' (their lists as tuples, their JSON values copied):
    ValueError when one of those values is not plain JSON."""
    groups = []
    for grec in record.groups:
        tools = []
        for trec in grec.tools:
            values = [*trec.__dict__.values()]
            waits, log = values[_T_WAITS], values[_T_LOG]
            values[_T_WAITS], values[_T_LOG] = tuple(waits) if waits else (), tuple(log) if log else ()
            if type(values[_T_ARGS]) not in _SCALARS:
                values[_T_ARGS] = _plain_copy(values[_T_ARGS])
            if type(values[_T_RESULT]) not in _SCALARS:
                values[_T_RESULT] = _plain_copy(values[_T_RESULT])
            if values[_T_ORIGINAL] is not None:
                values[_T_ORIGINAL] = _plain_copy(values[_T_ORIGINAL])
            tools.append(values)
        group = [*grec.__dict__.values()]
        group[_G_ARGS], group[_G_OUTPUTS], group[_G_TOOLS] = _plain_copy(grec.args), _plain_copy(grec.outputs), None
        groups.append((group, tools))
    run = [*record.__dict__.values()]
    run[_R_ARGS], run[_R_OUTPUTS], run[_R_GROUPS] = _plain_copy(record.args), _plain_copy(record.outputs), None
    return run, groups


def _from_snapshot(snapshot: _Snapshot) -> RunRecord:
    run_values, groups = snapshot
    run = dict(zip(_RUN_KEYS, run_values, strict=True))
    run["groups"] = []
    for group_values, tools in groups:
        group = dict(zip(_GROUP_KEYS, group_values, strict=True))
        group["tools"] = []
        for values in tools:
            fields = dict(zip(_TOOL_KEYS, values, strict=True))
            fields["waits"], fields["log"] = list(fields["waits"]), list(fields["log"])
            group["tools"].append(ToolRecord.model_construct(**fields))
        run["groups"].append(GroupRecord.model_construct(**group))
    return RunRecord.model_construct(**run)


@dataclass(slots=True)
class _Kept:
    fields: dict[str, Any]
    snapshot: _Snapshot | None  # the record as saved, until its text is made
    text: str | None
    finished: bool

    def read(self) -> RunRecord:
        if self.text is None:
            assert self.snapshot is not None
            self.text, self.snapshot = to_json_text(_from_snapshot(self.snapshot), compact=True), None
        return RunRecord.model_validate(json.loads(self.text))


class MemoryRunStore:
    """Keeps each record as a copy, read back through JSON text as a file would: what comes back is a
    copy, never shared, and what is kept never changes with the live record."""

    def __init__(self) -> None:
        self._items: dict[str, _Kept] = {}

    async def save(self, record: RunRecord) -> None:
        try:
            # The cyclic garbage collector waits while the copy is made: it makes no cycles, and it all
            # stays; collected every few hundred objects, each batch would be walked again by the
            # collections of the older generations it moves to.
            with paused_collection():
                snapshot = _snapshot(record)
            kept = _Kept(run_fields(record), snapshot, None, record.finished)
        except ValueError:  # as a file store would: made text now, or refused now
            kept = _Kept(run_fields(record), None, to_json_text(record, compact=True), record.finished)
        self._items[record.run_id] = kept

    async def save_many(self, records: Iterable[RunRecord]) -> None:
        for record in records:
            await self.save(record)

    async def get(self, run_id: str) -> RunRecord | None:
        item = self._items.get(run_id)
        return item.read() if item else None

    async def list(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return (await self.query(limit=limit, offset=offset)).items

    async def running(self) -> builtins.list[RunRecord]:
        return [item.read() for item in self._items.values() if not item.finished]

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
        rows = sorted(((sort_key(item.fields, run_id), run_id) for run_id, item in self._items.items()
                       if wanted.matches(item.fields)), reverse=True)
        page = [self._items[run_id].read() for _, run_id in rows[offset:offset + limit]]
        return Page(page, len(rows))

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
    ) -> Page[RunRecord | StoredText]:
        """`query`: this store vouches for no text, each record is given as it is read."""
        page = await self.query(status=status, sequence=sequence, started_from=started_from,
                                started_to=started_to, text=text, limit=limit, offset=offset)
        return Page(list[RunRecord | StoredText](page.items), page.total)


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
