"""TinyDB-backed stores behind the core's ports: sequences, runs, interactions, approval modes.

Every method runs its file work on the one `Writer` thread and is awaited from the event loop, so
TinyDB is only ever touched from one thread and the loop is never blocked. Hot documents (sequences,
running runs, pending interactions) live apart from history (`HotColdStore`): a finished run or an
answered request is archived, so a write never gets slower as history grows.

A stored document that no longer fits its model (edited by hand, or left by another version) is
left out of every answer, with a warning in the log, rather than breaking start-up or a listing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gui.core.approvals import APPROVAL_MODES, check_mode
from gui.core.interactions import InteractionRecord, InteractionStatus
from gui.core.model import Sequence
from gui.core.records import RunRecord
from gui.store.tables import HotColdStore
from gui.store.writer import Writer

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


def _load(model: type[M], doc: Any, key: str | None = None) -> M | None:
    """The stored document (or its `key`) as `model`; None, with a warning, when it does not fit."""
    if doc is None:
        return None
    try:
        return model.model_validate(doc[key] if key else doc)
    except (ValidationError, KeyError) as exc:
        why = (f"no {key!r}" if isinstance(exc, KeyError) else
               "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3]))
        log.warning("the stored %s %r cannot be read and is left out: %s", model.__name__,
                    getattr(doc, "doc_id", None), why)
        return None


def _load_all(model: type[M], docs: Iterable[Any], key: str | None = None) -> list[M]:
    return [item for item in (_load(model, d, key) for d in docs) if item is not None]


class TinySequenceStore:
    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer

    async def get(self, name: str) -> Sequence | None:
        return _load(Sequence, await self._writer.run(self._table.get, _key(name)), "tree")

    async def list(self) -> list[Sequence]:
        return _load_all(Sequence, await self._writer.run(self._table.list_hot), "tree")

    async def save(self, sequence: Sequence) -> None:
        doc = {"name": sequence.name, "tree": sequence.model_dump(mode="json", by_alias=True)}
        await self._writer.run(self._table.put_hot, _key(sequence.name), doc)

    async def delete(self, name: str) -> bool:
        return await self._writer.run(self._table.delete, _key(name))


def _key(name: str) -> str:
    """Sequence names are Unicode text; ids in the table are the name's hex (safe in any file)."""
    return name.encode("utf-8").hex() or "_"


class TinyRunStore:
    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer

    def _save(self, run_id: str, doc: dict[str, Any], finished: bool) -> None:
        self._table.put_hot(run_id, doc)
        if finished:
            self._table.archive(run_id)

    async def save(self, record: RunRecord) -> None:
        doc = record.model_dump(mode="json", by_alias=True)
        await self._writer.run(self._save, record.run_id, doc, record.finished)

    async def get(self, run_id: str) -> RunRecord | None:
        return _load(RunRecord, await self._writer.run(self._table.get, run_id))

    def _page(self, limit: int, offset: int) -> list[dict[str, Any]]:
        hot = sorted(self._table.list_hot(), key=lambda d: d.get("created_at", 0), reverse=True)
        page = [dict(d) for d in hot[offset:offset + limit]]
        rest = limit - len(page)
        if rest > 0:
            page += [dict(d) for d in self._table.iter_history(rest, max(0, offset - len(hot)))]
        return page

    async def list(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return _load_all(RunRecord, await self._writer.run(self._page, limit, offset))

    async def running(self) -> list[RunRecord]:
        return [r for r in _load_all(RunRecord, await self._writer.run(self._table.list_hot)) if not r.finished]

    async def count(self) -> int:
        return await self._writer.run(lambda: len(self._table.list_hot()) + self._table.count_history())


class TinyInteractionStore:
    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer

    def _save(self, doc: dict[str, Any], iid: str, pending: bool) -> None:
        self._table.put_hot(iid, doc)
        if not pending:
            self._table.archive(iid)

    async def save(self, record: InteractionRecord) -> None:
        doc = record.model_dump(mode="json")
        await self._writer.run(self._save, doc, record.interaction_id, record.status == "pending")

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        return _load(InteractionRecord, await self._writer.run(self._table.get, interaction_id))

    def _list(self, status: InteractionStatus | None, limit: int | None) -> list[dict[str, Any]]:
        docs = [dict(d) for d in self._table.list_hot()]
        if status != "pending":
            docs += [dict(d) for d in self._table.iter_history(limit)]
        if status is not None:
            docs = [d for d in docs if d.get("status") == status]
        return docs

    async def list(self, status: InteractionStatus | None = None, limit: int | None = None) -> list[InteractionRecord]:
        return _load_all(InteractionRecord, await self._writer.run(self._list, status, limit))


class TinyApprovalModes:
    """Approval modes, read from memory and written through to disk in the background.

    `get`/`set` are synchronous (the core calls them on the event loop): a change is applied in memory
    at once and queued on the writer, so the loop never waits for the disk.
    """

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer
        self._lock = threading.Lock()
        doc = writer.run_sync(table.get, "modes")
        stored = doc.get("modes") if doc else None
        self._modes: dict[str, Any] = {
            name: mode for name, mode in (stored.items() if isinstance(stored, dict) else ())
            if isinstance(name, str) and mode in APPROVAL_MODES}
        if doc and len(self._modes) != len(stored or ()):
            log.warning("stored approval modes that cannot be read are left out: %r", stored)

    def get(self, tool_name: str) -> Any:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def set(self, tool_name: str, mode: Any) -> None:
        check_mode(mode)
        with self._lock:
            if mode == "ask":
                self._modes.pop(tool_name, None)
            else:
                self._modes[tool_name] = mode
            snapshot = dict(self._modes)
        future = self._writer.submit(self._table.put_hot, "modes", {"modes": snapshot})
        future.add_done_callback(lambda f: f.exception() and log.error("could not save approval modes: %s",
                                                                        f.exception()))

    def all(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._modes)


def table(folder: Path, name: str) -> HotColdStore:
    return HotColdStore(folder, name)
