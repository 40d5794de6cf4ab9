"""Hot documents as a snapshot and an append-only journal, so that a change costs the same however
many documents are hot.

Rewriting the whole file of hot documents for each change made every change cost as much as all of
them together: with 10,000 requests waiting, storing one more took 60 ms. A `JournaledTable` keeps
the last snapshot and appends each change to a journal beside it, one line per `commit`:

    <folder>/<name>.json      the snapshot   {"<name>": {"<id>": {...}}}      (TinyDB's layout, as before)
    <folder>/<name>.journal   the changes    {"put": {"<id>": {...}}, "remove": ["<id>", ...]}  a line each

A change is on disk when `commit` returns: the line is written with one `write` and fsynced, so a
request is stored before anyone is told of it and an answer before its tool goes on. A store on the
`Writer`'s thread may hand the fsync to the writer instead (`sync_later`), which does it once for
every change made until its queue of writes is empty, before it hands any of their results out: a
thousand requests stored at once share one fsync.

Opening reads the snapshot and replays the journal. `compact` writes the snapshot again (atomically,
`atomic_write`) and then empties the journal: when the journal outgrows the documents it describes
(in the background when the store is given a way to schedule it, `later`), at open when a journal
was left behind, and at `close`. A crash between the two steps is harmless: each line puts whole
documents and removes ids, so replaying a journal onto a snapshot that already holds its changes
gives the same documents.

A process killed while writing a line can leave it cut short (no newline at the end): that change
was never acknowledged. A journal with such a torn line, or with a line that is not a change,
raises `CorruptDatabaseError` at open; the opener (`recovery.repair`) keeps the original aside,
writes back the whole lines and says so, as for any damaged file.

The documents are kept as their JSON text (a fraction of the parsed objects' size): a compaction
joins texts, and each read parses a fresh copy, so nobody changes the store through a document
they were given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
from tinydb.queries import QueryLike
from tinydb.table import Document

from gui.atomic import atomic_write, fsync_dir, remove_stale_temp_files
from gui.store.database import StoredDocument
from gui.store.errors import CorruptDatabaseError
from gui.store.files import dumps, key_text, parse_json

JOURNAL_SUFFIX = ".journal"
COMPACT_AT_LEAST = 1 << 20  # bytes of journal below which a compaction is not worth its write

SyncLater = Callable[[Callable[[], None]], bool]  # `Writer.sync_later`
Later = Callable[[Callable[[], object]], None]  # runs a call later, as housekeeping

_fdatasync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)


def journal_of(snapshot: Path) -> Path:
    """`runs.json` → `runs.journal`."""
    return snapshot.with_suffix(JOURNAL_SUFFIX)


def _parse(text: str | bytes) -> tuple[Any, bool]:
    """The JSON value of `text`, and whether orjson parsed it; ValueError if it is not JSON."""
    try:
        return orjson.loads(text), True
    except orjson.JSONDecodeError:  # what JSON allows beyond orjson (NaN, huge numbers): the standard parser
        return json.loads(text), False


def _loads(text: str | bytes) -> Any:
    return _parse(text)[0]


def _change(line: bytes) -> tuple[dict[str, Any], list[str], bool] | None:
    """The change a whole journal line holds, and whether orjson parsed it; None if it is not one."""
    try:
        data, by_orjson = _parse(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not set(data) <= {"put", "remove"}:
        return None
    put, remove = data.get("put", {}), data.get("remove", [])
    if not isinstance(put, dict) or not all(isinstance(doc, dict) for doc in put.values()):
        return None
    if not isinstance(remove, list) or not all(isinstance(doc_id, str) and doc_id for doc_id in remove):
        return None
    return put, remove, by_orjson


def read_changes(path: Path, raw: bytes) -> list[tuple[dict[str, Any], list[str], bool]]:
    """The changes in the journal `raw` (read from `path`) in order, each with whether orjson parsed
    it; `CorruptDatabaseError` if its last line was cut short or a line is not a change."""
    lines = raw.split(b"\n")
    if lines[-1].strip():
        raise CorruptDatabaseError(path, "its last change was cut short (the write was interrupted)")
    changes = []
    for number, line in enumerate(lines[:-1], 1):
        if not line.strip():
            continue
        change = _change(line)
        if change is None:
            raise CorruptDatabaseError(path, f"its line {number} is not a change")
        changes.append(change)
    return changes


def whole_lines(raw: bytes) -> list[bytes]:
    """The lines of a damaged journal that are changes (each with its newline): what repair keeps."""
    return [line.strip() + b"\n" for line in raw.split(b"\n") if line.strip() and _change(line) is not None]


def stored_documents(snapshot: Path, table: str) -> dict[str, dict[str, Any]]:
    """The documents of `table` as stored in `snapshot` and its journal, read without opening the
    store (a torn last line is left out). For tests and tools that look at a data folder."""
    tables = parse_json(snapshot, snapshot.read_bytes()) if snapshot.exists() else None
    docs: dict[str, dict[str, Any]] = dict((tables or {}).get(table) or {})
    journal = journal_of(snapshot)
    raw = journal.read_bytes() if journal.exists() else b""
    for line in raw.split(b"\n")[:-1]:
        change = _change(line) if line.strip() else None
        if change is not None:
            put, remove, _ = change
            for doc_id in remove:
                docs.pop(doc_id, None)
            docs.update(put)
    return docs


class Journal:
    """The append-only file of changes: `append` a line, `sync` it to disk, `truncate` it empty.

    Its size is counted here once the file is open (`fstat` on a file being synced can take as long
    as the sync): one `Journal` per file at a time, as the instance lock sees to. After a failed
    write that could not be taken back, or a failed sync, it is `broken`: the table then writes its
    snapshot again before the next change (see `JournaledTable.commit`).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.broken = False
        self._fd: int | None = None
        self._size = 0

    @property
    def size(self) -> int:
        if self._fd is not None:
            return self._size
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
            self._size = os.fstat(self._fd).st_size
            fsync_dir(self.path.parent)  # a journal just created must still be there after a power cut
        return self._fd

    def append(self, line: bytes) -> None:
        """Write `line` at the end (not synced yet). If it fails, the file is cut back to where it was."""
        fd = self._open()
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
        except BaseException:
            try:
                os.ftruncate(fd, self._size)
            except OSError:
                self.broken = True
            raise
        self._size += len(line)

    def sync(self) -> None:
        """Make every line appended so far durable."""
        if self._fd is None:
            return
        try:
            _fdatasync(self._fd)
        except BaseException:
            self.broken = True
            raise

    def truncate(self) -> None:
        """Empty the journal (its changes are in the snapshot now)."""
        if self._fd is None and not self.path.exists():
            return
        fd = self._open()
        os.ftruncate(fd, 0)
        os.fsync(fd)
        self._size = 0
        self.broken = False

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class JournaledTable:
    """The hot documents of one store, keyed by string id and replaced whole (see the module docstring).

    `sync_later`: hand the fsync of each change to the writer (`Writer.sync_later`); without it, or
    off the writer's thread, `commit` syncs itself. `later`: run compactions as housekeeping; without
    it, a compaction runs inside the `commit` that makes it due. `hold`: while it says True, a due
    compaction waits for the next change (the hot store's final documents about to move to history).
    Not thread-safe: one thread only.
    """

    def __init__(self, path: Path, table: str, *, sync_later: SyncLater | None = None,
                 later: Later | None = None, hold: Callable[[], bool] | None = None) -> None:
        self.path = Path(path)
        self.table = table
        self._sync_later = sync_later
        self._later = later
        self._hold = hold
        self._entries: dict[str, str] = {}  # id -> its entry's JSON text, `"<id>":{...}`
        self._live = 0  # bytes of the entries: what a compaction writes
        self._others: dict[str, Any] = {}  # other tables of the snapshot file, kept as they were
        self._compaction_due = False
        self._loaded: dict[str, dict[str, Any]] = {}
        remove_stale_temp_files(self.path)
        self.journal = Journal(journal_of(self.path))
        self._load()
        if self.journal.size:  # left by a process that stopped without closing
            self.compact()

    def _load(self) -> None:
        """The snapshot, then the journal's changes. Documents parsed by orjson are rendered by it
        too (ten times faster than `dumps`, and the same JSON); any other by `dumps`."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        try:
            data, exact = _parse(raw) if raw.strip() else ({}, True)
        except ValueError:
            data, exact = None, False
        if not isinstance(data, dict):
            data = parse_json(self.path, raw) or {}  # raises, saying what is wrong
        docs: dict[str, dict[str, Any]] = {}
        for name, table in data.items():
            if not isinstance(table, dict):
                raise CorruptDatabaseError(self.path, f"its table {name!r} is not a JSON object")
            if name != self.table:
                self._others[name] = table
                continue
            for doc_id, doc in table.items():
                if not isinstance(doc, dict):
                    raise CorruptDatabaseError(self.path, f"its document {doc_id!r} in {name!r} is not a JSON object")
            docs = table
        try:
            raw = self.journal.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        for put, remove, by_orjson in read_changes(self.journal.path, raw):
            exact = exact and by_orjson
            for doc_id in remove:
                docs.pop(doc_id, None)
            docs.update(put)
        render = _exact_entry if exact else _entry
        for doc_id, doc in docs.items():
            self._set(doc_id, render(doc_id, doc))
        self._loaded = docs

    def take_loaded(self) -> dict[str, dict[str, Any]]:
        """The documents as parsed at open, handed over once (to index them without parsing them
        again). Not copies: read them, never change them."""
        loaded, self._loaded = self._loaded, {}
        return loaded

    # -- reading

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._entries

    def ids(self) -> list[str]:
        """Every id, in the order the documents were first put."""
        return list(self._entries)

    def doc(self, doc_id: str) -> StoredDocument | None:
        """A fresh copy of the document stored under `doc_id`, or None."""
        entry = self._entries.get(doc_id)
        return None if entry is None else StoredDocument(_value(entry), doc_id)

    def value(self, doc_id: str) -> dict[str, Any] | None:
        """A fresh copy of the document stored under `doc_id` as a plain dict, or None."""
        entry = self._entries.get(doc_id)
        return None if entry is None else _value(entry)

    def entry(self, doc_id: str) -> str | None:
        """The JSON text of the document stored under `doc_id`, as its entry `"<id>":{...}`, or None.
        The same string object until the document is put again."""
        return self._entries.get(doc_id)

    def items(self) -> Iterator[tuple[str, StoredDocument]]:
        """Each id with a fresh copy of its document, in the order they were first put."""
        return ((doc_id, StoredDocument(_value(entry), doc_id)) for doc_id, entry in self._entries.items())

    def all(self) -> list[Document]:
        return [doc for _, doc in self.items()]

    def search(self, cond: QueryLike) -> list[Document]:
        """The documents matching a TinyDB query over the documents themselves."""
        return [doc for _, doc in self.items() if cond(doc)]

    # -- writing

    def commit(self, put: Mapping[str, Mapping[str, Any]] | None = None, remove: Iterable[str] = ()) -> None:
        """One change, on disk when this returns (or, with `sync_later`, before the writer hands
        out its result): remove the ids in `remove`, then put the documents in `put` (replacing)."""
        entries = {doc_id: _entry(doc_id, doc) for doc_id, doc in (put or {}).items()}
        gone = [doc_id for doc_id in remove if doc_id in self._entries and doc_id not in entries]
        if not entries and not gone:
            return
        if self.journal.broken:  # an earlier change may not be on disk as it is here: write it all
            self.compact()
        parts = []
        if gone:
            parts.append(f'"remove":{dumps(gone)}')
        if entries:
            parts.append('"put":{' + ",".join(entries.values()) + "}")
        self.journal.append(("{" + ",".join(parts) + "}\n").encode("utf-8"))
        self._apply(entries, gone)
        if self._sync_later is None or not self._sync_later(self.journal.sync):
            self.journal.sync()
        self._compact_if_due()

    def put(self, doc_id: str, doc: Mapping[str, Any]) -> None:
        self.commit(put={doc_id: doc})

    def _apply(self, entries: Mapping[str, str], gone: Iterable[str]) -> None:
        for doc_id in gone:
            entry = self._entries.pop(doc_id, None)
            if entry is not None:
                self._live -= len(entry) + 1
        for doc_id, entry in entries.items():
            self._set(doc_id, entry)

    def _set(self, doc_id: str, entry: str) -> None:
        old = self._entries.get(doc_id)
        if old is not None:
            self._live -= len(old) + 1
        self._entries[doc_id] = entry
        self._live += len(entry) + 1

    # -- compaction

    def _compact_if_due(self) -> None:
        if self._compaction_due or not self._due():
            return
        if self._later is None:
            self.compact()
            return
        self._compaction_due = True
        self._later(self._compact_due)

    def _compact_due(self) -> None:
        try:
            if self._due():
                self.compact()
        finally:
            self._compaction_due = False

    def _due(self) -> bool:
        """Whether the journal outgrew the documents it describes, and nothing holds its compaction
        (`hold`: documents about to be removed, which a compaction now would write for nothing; the
        change that removes them finds it due again)."""
        if self.journal.size < max(COMPACT_AT_LEAST, 2 * self._live):
            return False
        return self._hold is None or not self._hold()

    def compact(self) -> None:
        """Write the snapshot again with every document, then empty the journal."""
        tables = [f"{dumps(name)}:{dumps(docs)}" for name, docs in self._others.items()]
        tables.append(f"{dumps(self.table)}:{{" + ",".join(self._entries.values()) + "}")
        atomic_write(self.path, ("{" + ",".join(tables) + "}").encode("utf-8"))
        self.journal.truncate()

    def close(self) -> None:
        """Compact what the journal holds and let go of its file; the table can still be used."""
        try:
            if self.journal.size:
                self.compact()
        finally:
            self.journal.close()


def _entry(doc_id: str, doc: Mapping[str, Any]) -> str:
    return f"{key_text(doc_id)}:{dumps(doc)}"


def _exact_entry(doc_id: str, doc: Mapping[str, Any]) -> str:
    """`_entry` of a document orjson parsed (so it holds nothing orjson would render differently)."""
    try:
        return orjson.dumps({doc_id: doc})[1:-1].decode()
    except (TypeError, orjson.JSONEncodeError):
        return _entry(doc_id, doc)


def _value(entry: str) -> dict[str, Any]:
    value: dict[str, Any] = next(iter(_loads("{" + entry + "}").values()))
    return value


__all__ = ["COMPACT_AT_LEAST", "JOURNAL_SUFFIX", "Journal", "JournaledTable", "journal_of", "read_changes",
           "stored_documents", "whole_lines"]

