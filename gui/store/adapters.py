"""TinyDB-backed stores behind the core's ports: sequences, runs, interactions, and approval modes.

Every method runs its file work on the one `Writer` thread and is awaited from the event loop, so
TinyDB is only ever touched from one thread and the loop is never blocked. Hot documents (sequences,
running runs, pending interactions) live apart from history (`HotColdStore`): a finished run or an
answered request goes to history, so a write never gets slower as history grows. Queries are TinyDB
queries over the index fields the core defines (`run_fields`, `interaction_fields`), answered from
the indexes, so a page reads only the segments that hold it.

A stored document that no longer fits its model (edited by hand, or left by another version) is
left out of every answer, with a warning in the log, rather than breaking start-up or a listing.

Approval modes (and rules) are one document of the settings table, read from memory, and durable
before anyone is told: the core reads a tool's mode on the event loop for every approval, so `get`
answers from memory. `set` applies the change in memory at once (so the next approval already sees
it), queues the write on the store's writer, and returns `Saved`: awaiting it returns once the writer
has written and fsynced the file. `InteractionService.respond` awaits it before an "approve and always
allow" is acknowledged, so a process killed right after the answer still has the mode on disk. As in
the memory store, `ask` is the absence of a mode: setting it removes the tool's entry.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping
from concurrent.futures import Future
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from tinydb import Query

from gui.core.asks import (
    APPROVAL_MODES,
    ENDED_STATUSES,
    ApprovalMode,
    ApprovalRule,
    AuditDraft,
    AuditLog,
    InteractionFilter,
    InteractionKind,
    InteractionRecord,
    InteractionStatus,
    InteractionStatusFilter,
    check_mode,
    interaction_fields,
)
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, check_window, sort_key
from gui.core.runs import RunFilter, RunRecord, RunStatus, run_fields
from gui.core.sequences import Group, Sequence
from gui.store.audit import FileAuditLog
from gui.store.database import StoredDocument
from gui.store.hotcold import HotColdStore
from gui.store.match import Match
from gui.store.vouching import Vouching
from gui.store.writer import Writer, WriterClosedError

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
ARCHIVE_EVERY = 1.0  # seconds between two moves of ended records to history
# seconds a move waits after the save that made it due: what that save lets go on (an answer's tool
# recording its command, the run's next saves) is written first, not behind a rewrite of history
ARCHIVE_QUIET = 0.5
HOLD_GIL = 0.0005  # seconds a page being read holds the GIL before it lets others have it


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


def _load_texts(model: type[M], texts: Iterable[tuple[str, str | bytes]]) -> list[M]:
    """`_load_all` of a page found as JSON text (`HotColdStore.find_texts`): each parsed and
    validated at once by pydantic, so the records share nothing with the store's documents; what it
    cannot read (a lone surrogate's escape) is parsed by `json` and validated as `_load` does.

    Meant for a worker thread: it lets go of the GIL between two records once it has held it for
    `HOLD_GIL` seconds, so the event loop (an answer to a request) never waits for a whole page to
    be read (pydantic holds the GIL while it works, and Python takes it back only after 5 ms)."""
    items = []
    held = time.perf_counter()
    for doc_id, text in texts:
        item = _load_text(model, doc_id, text)
        if item is not None:
            items.append(item)
        if time.perf_counter() - held > HOLD_GIL:
            time.sleep(0)  # the GIL to whoever waits for it
            held = time.perf_counter()
    return items


def _load_text(model: type[M], doc_id: str, text: str | bytes) -> M | None:
    try:
        return model.model_validate_json(text)
    except ValidationError:  # says what does not fit, and leaves it out
        try:
            doc = json.loads(text)
        except ValueError as exc:  # not one JSON value: a history file changed behind the store's back
            log.warning("the stored %s %r cannot be read and is left out: its text is not JSON (%s)",
                        model.__name__, doc_id, exc)
            return None
        return _load(model, StoredDocument(doc, doc_id))


def _vouched_or_read(model: type[M], vouching: Vouching,
                     texts: Iterable[tuple[str, str | bytes, bytes | None]]) -> list[M | StoredText]:
    """`_load_texts`, but a text the store vouches for (its digest matches: `gui.store.vouching`)
    is kept as it is, unread (`StoredText`): the page is sent on as JSON."""
    items: list[M | StoredText] = []
    held = time.perf_counter()
    for doc_id, text, digest in texts:
        raw = text if isinstance(text, bytes) else text.encode("utf-8")
        item: M | StoredText | None = (StoredText(doc_id, raw) if vouching.matches(doc_id, raw, digest)
                                       else _load_text(model, doc_id, text))
        if item is not None:
            items.append(item)
        if time.perf_counter() - held > HOLD_GIL:
            time.sleep(0)  # the GIL to whoever waits for it
            held = time.perf_counter()
    return items


async def _read_page(model: type[M], texts: list[tuple[str, str | bytes]]) -> list[M]:
    return await asyncio.to_thread(_load_texts, model, texts)


def indexer(model: type[M], fields: Callable[[M], dict[str, Any]]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """Index fields of a stored document (at open, or rebuilding an index); `{}` if it does not fit."""

    def index(doc: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return fields(model.model_validate(dict(doc)))
        except ValidationError:
            return {}

    return index


def run_query(wanted: RunFilter) -> Match:
    """`RunFilter` as a `Match` over `run_fields` (hashable: history keeps its answers per segment)."""
    equal = {name: value for name, value in (("status", wanted.status), ("sequence", wanted.sequence))
             if value is not None}
    return Match.where(equal, contains={"sequence": wanted.text} if wanted.text else None,
                       at_least=None if wanted.started_from is None else {"created_at": wanted.started_from},
                       below=None if wanted.started_to is None else {"created_at": wanted.started_to})


def interaction_query(wanted: InteractionFilter) -> Match:
    """`InteractionFilter` as a `Match` over `interaction_fields` ("ended": any status but pending)."""
    given: dict[str, Any] = wanted.given()
    one_of = {}
    if given.get("status") == "ended":
        del given["status"]
        one_of["status"] = ENDED_STATUSES
    return Match.where(given, one_of=one_of)


Item = tuple[str, dict[str, Any], dict[str, Any], bool]  # id, document, index fields, final


class Archiver:
    """Moves what `HotColdStore.settle_all` left final in the hot documents to history, as
    housekeeping, at most once every ARCHIVE_EVERY seconds, and ARCHIVE_QUIET seconds after the
    save that made it due: a move takes the writer for tens of milliseconds, and an answer's tool,
    recording its command before it starts, must not wait behind it. Each move rewrites the latest
    history segment, so a burst of endings (closing with thousands of runs waiting) is moved in a few passes
    rather than one per answer. Until then the records are hot, final, and found as such by every
    query; a process that stops first leaves them there, and the next open moves them."""

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer
        self._queued = False  # a move is due (on the loop's thread; the writer clears it as it starts)
        self._last = -ARCHIVE_EVERY  # monotonic time the last move started

    async def settle(self, items: list[Item], first: Callable[[], object] | None = None) -> None:
        """Save: what just ended is on disk (in the hot documents) when this returns; its move to
        history follows (several answers moved together). `first`: written before, in the same
        operation of the writer (a request's decision, before its end)."""
        if await self._writer.run(self._settle, items, first) and not self._queued:
            self._queued = True
            wait = max(self._last + ARCHIVE_EVERY - time.monotonic(), ARCHIVE_QUIET)
            asyncio.get_running_loop().call_later(wait, self._submit)  # the pace of moves, not a wait for an event

    def _settle(self, items: list[Item], first: Callable[[], object] | None) -> bool:
        if first is not None:
            first()
        return self._table.settle_all(items)

    def _submit(self) -> None:
        try:
            self._writer.submit_later(self._move).add_done_callback(report_archive)
        except WriterClosedError:  # closed meanwhile: the next open moves them
            self._queued = False

    def _move(self) -> int:
        self._queued = False  # before reading what waits: anything settled from now on queues a move again
        self._last = time.monotonic()
        return self._table.archive_pending()


def report_archive(done: Future[int]) -> None:
    exc = done.exception()
    if exc is not None:  # the records stay hot, final, and are found there
        log.warning("could not move ended records to history (they stay where they are): %s", exc)


def sequence_key(name: str) -> str:
    """Sequence names are Unicode text; ids in the table are the name's hex (safe in any file)."""
    return name.encode("utf-8").hex() or "_"


# What a document of each table looks like, to tell it from a fragment when salvaging a damaged file.
def is_sequence(doc_id: str, doc: Mapping[str, Any]) -> bool:
    name = doc.get("name")
    return isinstance(name, str) and sequence_key(name) == doc_id and isinstance(doc.get("tree"), dict)


def is_run(doc_id: str, doc: Mapping[str, Any]) -> bool:
    return doc.get("run_id") == doc_id


def is_interaction(doc_id: str, doc: Mapping[str, Any]) -> bool:
    request = doc.get("request")
    return isinstance(request, dict) and request.get("interaction_id") == doc_id


class TinySequenceStore:
    """Sequences, kept parsed in memory once first read: a tree is frozen and this store is the
    only writer of its table, so reading one back costs nothing. Reading them at first and writing
    one happen on the writer thread, group by group (each a short step that lets the event loop
    in), so a large sequence never holds up the app's other requests."""

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer
        # By name; None until first read. Replaced (never changed in place) on the writer thread only.
        self._trees: dict[str, Sequence] | None = None

    async def get(self, name: str) -> Sequence | None:
        return (await self._all()).get(name)

    async def list(self) -> list[Sequence]:
        return builtins.list((await self._all()).values())

    async def save(self, sequence: Sequence) -> None:
        await self._writer.run(self._put, sequence)

    async def delete(self, name: str) -> bool:
        return await self._writer.run(self._remove, name)

    async def identity_of(self, name: str) -> str | None:
        """The identity kept in the stored tree, read without validating the tree (a large one takes
        long): None when nothing is stored under `name`, "" when it was saved before identities."""
        doc = await self._writer.run(self._table.get, sequence_key(name))
        if doc is None:
            return None
        tree = doc.get("tree")
        identity = tree.get("identity") if isinstance(tree, dict) else None
        return identity if isinstance(identity, str) else ""

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        await self._writer.run(self._put, sequence, old_name)

    async def _all(self) -> dict[str, Sequence]:
        trees = self._trees
        return trees if trees is not None else await self._writer.run(self._loaded)

    # -- on the writer thread
    def _loaded(self) -> dict[str, Sequence]:
        if self._trees is None:
            trees = (_sequence(doc) for doc in self._table.list_hot())
            self._trees = {tree.name: tree for tree in trees if tree is not None}
        return self._trees

    def _put(self, sequence: Sequence, old_name: str | None = None) -> None:
        """Save `sequence` (in place of `old_name`, a rename, in one write)."""
        doc = sequence_document(sequence)
        if old_name is None:
            self._table.put_hot(sequence_key(sequence.name), doc)
        else:
            self._table.swap_hot(sequence_key(old_name), sequence_key(sequence.name), doc)
        if self._trees is not None:
            self._trees = {**{k: v for k, v in self._trees.items() if k != old_name}, sequence.name: sequence}

    def _remove(self, name: str) -> bool:
        found = self._table.delete(sequence_key(name))
        if self._trees is not None:
            self._trees = {k: v for k, v in self._trees.items() if k != name}
        return found


def sequence_document(sequence: Sequence) -> dict[str, Any]:
    """What is stored of a sequence, dumped group by group (`model_dump` of the whole tree is one
    step that holds every other thread for as long as it takes)."""
    tree = sequence.model_dump(mode="json", by_alias=True, exclude={"groups"})
    tree["groups"] = [group.model_dump(mode="json", by_alias=True) for group in sequence.groups]
    return {"name": sequence.name, "tree": tree}


def _sequence(doc: Any) -> Sequence | None:
    """A stored sequence read group by group (see `sequence_document`); None, with a warning, when it
    does not fit."""
    try:
        tree = doc["tree"]
        groups = tuple(Group.model_validate(group) for group in tree["groups"])
        return Sequence.model_validate({**tree, "groups": groups})
    except (ValidationError, KeyError, TypeError):
        return _load(Sequence, doc, "tree")  # says what does not fit, and leaves it out


class TinyRunStore:
    def __init__(self, table: HotColdStore, writer: Writer, vouched: Vouching) -> None:
        """`vouched`: what `table`'s history vouches for (`vouching(RunRecord)`, given to it too)."""
        self._table, self._writer, self._vouching = table, writer, vouched
        self._archiver = Archiver(table, writer)

    async def save(self, record: RunRecord) -> None:
        await self.save_many([record])

    async def save_many(self, records: Iterable[RunRecord]) -> None:
        """`save` of each in turn; finished runs new to the store go to history in one write per segment."""
        items = [(r.run_id, r.model_dump(mode="json", by_alias=True), run_fields(r), r.finished) for r in records]
        await self._archiver.settle(items)

    async def get(self, run_id: str) -> RunRecord | None:
        return _load(RunRecord, await self._writer.run(self._table.get, run_id))

    async def list(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return (await self.query(limit=limit, offset=offset)).items

    async def running(self) -> builtins.list[RunRecord]:
        docs = await self._writer.run(self._table.search_hot, Query().status == "running")
        return [r for r in _load_all(RunRecord, docs) if not r.finished]

    async def count(self) -> int:
        return await self._writer.read(len, self._table)

    async def ids_starting(self, prefix: str, limit: int) -> builtins.list[str]:
        return await self._writer.run(self._table.ids_starting, prefix, limit)

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
        cond = run_query(RunFilter(status, sequence, started_from, started_to, text))
        texts, total = await self._writer.read(self._table.find_texts, cond, sort_key, limit, offset)
        return Page(await _read_page(RunRecord, texts), total)

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
        """`query`, each text history vouches for kept as it is (checked against its digest in a
        worker thread, with the others read there as `query` reads them)."""
        check_window(limit, offset)
        cond = run_query(RunFilter(status, sequence, started_from, started_to, text))
        texts, total = await self._writer.read(self._table.find_vouched_texts, cond, sort_key, limit, offset)
        return Page(await asyncio.to_thread(_vouched_or_read, RunRecord, self._vouching, texts), total)


def _interaction_item(record: InteractionRecord, document: dict[str, Any] | None = None) -> Item:
    """What the hot and cold store keeps of `record`; `document`: its JSON form, when made already."""
    return (record.interaction_id, record.model_dump(mode="json") if document is None else document,
            interaction_fields(record), record.status != "pending")


class TinyInteractionStore:
    def __init__(self, table: HotColdStore, writer: Writer, vouched: Vouching) -> None:
        """`vouched`: what `table`'s history vouches for (`vouching(InteractionRecord)`, given to it too)."""
        self._table, self._writer, self._vouching = table, writer, vouched
        self._archiver = Archiver(table, writer)

    async def save(self, record: InteractionRecord) -> None:
        await self.save_many([record])

    async def save_many(self, records: Iterable[InteractionRecord],
                        documents: Iterable[dict[str, Any]] | None = None) -> None:
        """`save` of each in turn; ended requests new to the store go to history in one write per segment.
        `documents`: their JSON forms, made by the caller (kept as they are, not made again)."""
        items = ([_interaction_item(r) for r in records] if documents is None
                 else [_interaction_item(r, d) for r, d in zip(records, documents, strict=True)])
        await self._archiver.settle(items)

    async def save_with(self, record: InteractionRecord, decision: AuditDraft, audit: AuditLog) -> None:
        """The decision, then the record: in one operation of the writer when `audit` is the data
        folder's record of decisions on this store's writer (`FileAuditLog`)."""
        if isinstance(audit, FileAuditLog) and audit.writer is self._writer:
            await self._archiver.settle([_interaction_item(record)], partial(audit.append_here, [decision]))
        else:
            await audit.append(decision)
            await self.save(record)

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        return _load(InteractionRecord, await self._writer.run(self._table.get, interaction_id))

    async def list(self, status: InteractionStatus | None = None) -> list[InteractionRecord]:
        cond = interaction_query(InteractionFilter(status=status))
        docs, _ = await self._writer.read(self._table.find, cond, sort_key)
        return _load_all(InteractionRecord, reversed(docs))

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
    ) -> Page[InteractionRecord]:
        check_window(limit, offset)
        cond = interaction_query(InteractionFilter(status, kind, run_id, sequence, tool_name))
        texts, total = await self._writer.read(self._table.find_texts, cond, sort_key, limit, offset)
        return Page(await _read_page(InteractionRecord, texts), total)

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
    ) -> Page[InteractionRecord | StoredText]:
        """`query`, each text history vouches for kept as it is (as `TinyRunStore.query_texts`)."""
        check_window(limit, offset)
        cond = interaction_query(InteractionFilter(status, kind, run_id, sequence, tool_name))
        texts, total = await self._writer.read(self._table.find_vouched_texts, cond, sort_key, limit, offset)
        return Page(await asyncio.to_thread(_vouched_or_read, InteractionRecord, self._vouching, texts), total)


MODES_ID = "modes"


def is_settings(doc_id: str, doc: Mapping[str, Any]) -> bool:
    """A document of the settings table (to tell it from a fragment when salvaging)."""
    return doc_id == MODES_ID and isinstance(doc.get("modes"), dict)


class Saved:
    """Awaitable: completes when the write it stands for is on disk (raises if that write failed).

    Awaiting it never cancels the write: a cancelled caller leaves it to finish."""

    def __init__(self, future: Future[Any] | None) -> None:
        self._future = future

    def __await__(self) -> Generator[Any, None, None]:
        if self._future is not None:
            yield from asyncio.shield(asyncio.wrap_future(self._future)).__await__()


class TinyApprovalModes:
    """`ApprovalModes` stored in the `settings` table, document `modes`."""

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer
        self._lock = threading.Lock()
        self._last: Future[Any] | None = None
        doc = writer.run_sync(table.get, MODES_ID)
        stored = doc.get("modes") if doc else None
        self._modes: dict[str, ApprovalMode] = {
            name: mode for name, mode in (stored.items() if isinstance(stored, dict) else ())
            if isinstance(name, str) and mode in APPROVAL_MODES and mode != "ask"}
        self._rules: dict[str, ApprovalRule] = {}
        stored_rules = doc.get("rules") if doc else None
        for raw in stored_rules if isinstance(stored_rules, list) else []:
            try:
                rule = ApprovalRule.model_validate(raw)
            except ValidationError:
                log.warning("a stored approval rule that cannot be read is left out: %r", raw)
                continue
            self._rules[rule.rule_id] = rule
        readable = sum(1 for mode in (stored.values() if isinstance(stored, dict) else ()) if mode in APPROVAL_MODES)
        if doc and (not isinstance(stored, dict) or readable != len(stored)):
            log.warning("stored approval modes that cannot be read are left out: %r", stored)

    def get(self, tool_name: str) -> ApprovalMode:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def set(self, tool_name: str, mode: ApprovalMode) -> Saved:
        checked = check_mode(mode)
        with self._lock:
            last = self._last
            unchanged = self._modes.get(tool_name, "ask") == checked
            if unchanged and (last is None or not last.done() or last.exception() is None):
                return Saved(last)  # nothing new to write: durable once the last write is
            if checked == "ask":
                self._modes.pop(tool_name, None)
            else:
                self._modes[tool_name] = checked
            return self._write()

    def _write(self) -> Saved:
        """Queue the whole settings document (caller holds the lock, so writes keep their order)."""
        doc = {"modes": dict(self._modes), "rules": [r.model_dump(mode="json") for r in self._rules.values()]}
        future = self._writer.submit(self._table.put_hot, MODES_ID, doc)
        self._last = future
        future.add_done_callback(_report_modes)
        return Saved(future)

    def rules(self) -> list[ApprovalRule]:
        with self._lock:
            return list(self._rules.values())

    def add_rule(self, rule: ApprovalRule) -> Saved:
        with self._lock:
            self._rules[rule.rule_id] = rule
            return self._write()

    def remove_rule(self, rule_id: str) -> Saved:
        with self._lock:
            if self._rules.pop(rule_id, None) is None:
                return Saved(self._last)
            return self._write()

    def all(self) -> dict[str, ApprovalMode]:
        with self._lock:
            return dict(self._modes)


def _report_modes(future: Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("could not save approval modes: %s", future.exception())
