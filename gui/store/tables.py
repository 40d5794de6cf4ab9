"""Hot documents and their growing history, kept apart so that writes do not slow down as history grows.

TinyDB rewrites a whole file on every write, so one file holding every run ever made would make each
save slower than the last. A `HotColdStore` keeps the documents still changing (running runs, pending
interactions) in a small hot file, and moves finished ones into history segments of bounded size.
Every write rewrites one bounded file, whatever the size of the history:

    <folder>/<name>.json                       hot documents         {"<name>": {"<id>": {...}}}
    <folder>/history/<name>-0001.json          one history segment   same layout, <= segment_docs docs
    <folder>/history/<name>-0001.index.json    that segment's ids    {"ids": ["<id>", ...]} archive order

Data files use TinyDB's layout (a `TinyDB(path, storage=AtomicJSONStorage)` can open them for an ad
hoc query) and are written with `atomic_write`. The id → segment index is split per segment, so that
archiving rewrites only the latest segment's index; the process holds the union in memory (loaded at
open: only the small index files are read, never the segments).

Each file is mirrored in memory as serialized documents: a read parses one document, a write renders
the file from the mirror without re-reading it, and the mirror changes only once the file has. Every
call is on disk when it returns; nothing is deferred (the reason TinyDB's `CachingMiddleware` is not
used). Returned documents are fresh `tinydb.table.Document`s (`doc.doc_id` is the id): changing one
never changes the store.

Crash safety rests on two rules for the history files:

1. An id is in history exactly when a segment's index lists it, and an index never lists an id its
   segment does not hold: a document is written to the segment before the index lists it, and the
   index drops it before the segment does. A document in a segment but not in its index (left by a
   crash between the two writes) is invisible and is dropped the next time that segment is written.
2. `archive` writes history first and removes the hot copy last. A crash in between leaves the same
   document in both places. Reads then prefer the hot copy: `get` and `list_hot` return it,
   `iter_history` and `count_history` skip it. Hot is the right copy because archiving copies it
   unchanged and every later `put_hot` lands there, so it is never older than the history copy.
   Calling `archive` again finishes the move.

A segment file without an index file (a crash while opening a new segment, or an index moved aside)
has its index rebuilt from its documents at open; rule 2 covers any that are still hot.

Not thread-safe: call it from one thread only (the store `Writer`'s).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import Any

from tinydb.table import Document

from gui.store.atomic import (
    AtomicJSONStorage,
    CorruptDatabaseError,
    atomic_write,
    dumps,
    read_json,
    remove_stale_temp_files,
)

log = logging.getLogger(__name__)

_NAME = re.compile(r"^[A-Za-z0-9_]+$")


class _DocFile:
    """One TinyDB-layout file holding one table, mirrored in memory as serialized documents."""

    def __init__(self, path: Path, table: str) -> None:
        self.path = path
        self._table = table
        data = AtomicJSONStorage(path).read() or {}
        docs = data.pop(table, {})
        for doc_id, doc in docs.items():
            if not isinstance(doc, dict):
                raise CorruptDatabaseError(path, f"its document {doc_id!r} is not a JSON object")
        # Tables other than ours are kept verbatim, never dropped.
        self._others = {name: dumps(value) for name, value in data.items()}
        self._docs: dict[str, str] = {str(doc_id): dumps(doc) for doc_id, doc in docs.items()}
        self.size = sum(map(len, self._docs.values()))

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def ids(self) -> list[str]:
        return list(self._docs)

    def raw(self, doc_id: str) -> str | None:
        return self._docs.get(doc_id)

    def get(self, doc_id: str) -> dict[str, Any] | None:
        raw = self._docs.get(doc_id)
        return None if raw is None else json.loads(raw)

    def commit(
        self,
        put: Mapping[str, str] | None = None,
        remove: Iterable[str] = (),
        keep: Container[str] | None = None,
    ) -> None:
        """Rewrite the file: drop ids not in `keep` (if given) and those in `remove`, then set `put`."""
        docs = dict(self._docs) if keep is None else {k: v for k, v in self._docs.items() if k in keep}
        for doc_id in remove:
            docs.pop(doc_id, None)
        if put:
            docs.update(put)
        body = ",".join(f"{dumps(doc_id)}:{raw}" for doc_id, raw in docs.items())
        tables = [f"{dumps(self._table)}:{{{body}}}"]
        tables += [f"{dumps(name)}:{raw}" for name, raw in self._others.items()]
        atomic_write(self.path, ("{" + ",".join(tables) + "}").encode("ascii"))
        self._docs = docs
        self.size = sum(map(len, docs.values()))


class HotColdStore:
    """Documents keyed by string id: a hot set that changes, and an append-mostly history.

    `segment_docs` and `segment_bytes` bound each history segment (whichever is reached first);
    `cached_segments` is how many segments stay parsed in memory for reads.
    """

    def __init__(
        self,
        folder: Path | str,
        name: str,
        *,
        segment_docs: int = 1000,
        segment_bytes: int = 4 * 1024 * 1024,
        cached_segments: int = 4,
    ) -> None:
        if not _NAME.match(name):
            raise ValueError(f"store name {name!r} must be letters, digits and underscores")
        if segment_docs < 1 or segment_bytes < 1 or cached_segments < 1:
            raise ValueError("segment_docs, segment_bytes and cached_segments must be positive")
        self.folder = Path(folder)
        self.name = name
        self.history_folder = self.folder / "history"
        self._segment_docs = segment_docs
        self._segment_bytes = segment_bytes
        self._cached_segments = cached_segments
        self.history_folder.mkdir(parents=True, exist_ok=True)
        self._hot = _DocFile(self.folder / f"{name}.json", name)
        self._seg_ids: dict[int, list[str]] = {}
        self._index: dict[str, int] = {}
        self._segments: OrderedDict[int, _DocFile] = OrderedDict()
        self._load_history()

    # -- reading

    def get(self, doc_id: str) -> Document | None:
        """The document, hot copy first; None if it is stored nowhere."""
        doc = self._hot.get(doc_id)
        if doc is None:
            seg = self._index.get(doc_id)
            if seg is None:
                return None
            doc = self._segment(seg).get(doc_id)
            if doc is None:
                log.warning("%s: the index lists %r but its segment does not hold it", self.name, doc_id)
                return None
        return Document(doc, doc_id)

    def list_hot(self) -> list[Document]:
        """Every hot document, in the order they were first put."""
        return [Document(self._hot.get(doc_id) or {}, doc_id) for doc_id in self._hot.ids()]

    def iter_history(
        self, limit: int | None = None, offset: int = 0, newest_first: bool = True
    ) -> list[Document]:
        """A page of history in archive order, newest first by default.

        A list, not an iterator: a lazy iterator would read segments on whatever thread consumes it.
        Segments before the page are skipped without being read.
        """
        if offset < 0 or (limit is not None and limit < 0):
            raise ValueError("limit and offset must not be negative")
        page: list[Document] = []
        skip = offset
        for seg in sorted(self._seg_ids, reverse=newest_first):
            if limit is not None and len(page) >= limit:
                break
            ids = [i for i in self._seg_ids[seg] if i not in self._hot]
            if newest_first:
                ids.reverse()
            if skip >= len(ids):
                skip -= len(ids)
                continue
            ids, skip = ids[skip:], 0
            if limit is not None:
                ids = ids[: limit - len(page)]
            segment = self._segment(seg)
            for doc_id in ids:
                doc = segment.get(doc_id)
                if doc is None:
                    log.warning("%s: the index lists %r but its segment does not hold it", self.name, doc_id)
                    continue
                page.append(Document(doc, doc_id))
        return page

    def count_history(self) -> int:
        """How many documents are in history only (those still hot count as hot)."""
        return len(self._index) - sum(1 for doc_id in self._hot.ids() if doc_id in self._index)

    # -- writing

    def put_hot(self, doc_id: str, doc: Mapping[str, Any]) -> None:
        """Create or replace (not merge) a hot document; it is on disk when this returns."""
        _check_id(doc_id)
        self._hot.commit(put={doc_id: dumps(dict(doc))})

    def archive(self, doc_id: str) -> None:
        """Move a document from hot to history. Already archived: nothing to do. Unknown: `KeyError`."""
        raw = self._hot.raw(doc_id)
        if raw is None:
            if doc_id in self._index:
                return
            raise KeyError(doc_id)
        seg = self._index.get(doc_id)
        if seg is None:
            seg = self._target_segment()
        ids = self._seg_ids.get(seg, [])
        self._segment(seg).commit(put={doc_id: raw}, keep=set(ids))
        if doc_id not in self._index:
            ids = [*ids, doc_id]
            self._write_index(seg, ids)
            self._seg_ids[seg] = ids
            self._index[doc_id] = seg
        self._hot.commit(remove=[doc_id])

    def delete(self, doc_id: str) -> bool:
        """Remove a document from hot and history; False if it was stored nowhere."""
        found = False
        seg = self._index.get(doc_id)
        if seg is not None:
            ids = [i for i in self._seg_ids[seg] if i != doc_id]
            self._write_index(seg, ids)
            self._seg_ids[seg] = ids
            del self._index[doc_id]
            self._segment(seg).commit(remove=[doc_id], keep=set(ids))
            found = True
        if doc_id in self._hot:
            self._hot.commit(remove=[doc_id])
            found = True
        return found

    def add_history(self, items: Iterable[tuple[str, Mapping[str, Any]]]) -> int:
        """Append documents straight to history, one write per filled segment (imports, benchmarks).

        Ids already stored are refused with `ValueError`; batches written before that stay written.
        """
        added = 0
        seg = self._target_segment()
        batch: dict[str, str] = {}
        size = self._segment(seg).size
        for doc_id, doc in items:
            _check_id(doc_id)
            if doc_id in self._index or doc_id in self._hot or doc_id in batch:
                raise ValueError(f"{doc_id!r} is already stored")
            raw = dumps(dict(doc))
            batch[doc_id] = raw
            size += len(raw)
            if len(self._seg_ids.get(seg, [])) + len(batch) >= self._segment_docs or size >= self._segment_bytes:
                added += self._append(seg, batch)
                seg, batch, size = seg + 1, {}, 0
        if batch:
            added += self._append(seg, batch)
        return added

    def close(self) -> None:
        """Forget the parsed segments. Nothing is pending: every write is already on disk."""
        self._segments.clear()

    # -- internals

    def _append(self, seg: int, batch: dict[str, str]) -> int:
        ids = self._seg_ids.get(seg, [])
        self._segment(seg).commit(put=batch, keep=set(ids))
        ids = [*ids, *batch]
        self._write_index(seg, ids)
        self._seg_ids[seg] = ids
        self._index.update(dict.fromkeys(batch, seg))
        return len(batch)

    def _segment_path(self, seg: int) -> Path:
        return self.history_folder / f"{self.name}-{seg:04d}.json"

    def _index_path(self, seg: int) -> Path:
        return self.history_folder / f"{self.name}-{seg:04d}.index.json"

    def _segment(self, seg: int) -> _DocFile:
        segment = self._segments.get(seg)
        if segment is None:
            segment = _DocFile(self._segment_path(seg), self.name)
            self._segments[seg] = segment
            while len(self._segments) > self._cached_segments:
                self._segments.popitem(last=False)
        else:
            self._segments.move_to_end(seg)
        return segment

    def _target_segment(self) -> int:
        """Where a newly archived document goes: the latest segment, or a new one if that is full."""
        if not self._seg_ids:
            return 1
        latest = max(self._seg_ids)
        if len(self._seg_ids[latest]) < self._segment_docs and self._segment(latest).size < self._segment_bytes:
            return latest
        return latest + 1

    def _write_index(self, seg: int, ids: list[str]) -> None:
        atomic_write(self._index_path(seg), dumps({"ids": ids}).encode("ascii"))

    def _read_index(self, seg: int) -> list[str]:
        path = self._index_path(seg)
        ids = (read_json(path) or {}).get("ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise CorruptDatabaseError(path, "its 'ids' is not a list of strings")
        return ids

    def _load_history(self) -> None:
        pattern = re.compile(rf"^{re.escape(self.name)}-(\d+)(\.index)?\.json$")
        found: dict[int, set[str]] = {}
        for entry in os.scandir(self.history_folder):
            match = pattern.match(entry.name)
            if match:
                found.setdefault(int(match[1]), set()).add("index" if match[2] else "data")
        remove_stale_temp_files(self.history_folder / f"{self.name}-[0-9]*.json")
        for seg in sorted(found):
            if "data" not in found[seg]:
                if self._read_index(seg):
                    log.warning("%s: segment %s is missing; the documents its index lists are lost",
                                self.name, self._segment_path(seg))
                ids: list[str] = []
            elif "index" in found[seg]:
                ids = self._read_index(seg)
            else:
                ids = self._segment(seg).ids()
                self._write_index(seg, ids)
                log.warning("%s: rebuilt the missing index of %s", self.name, self._segment_path(seg))
            kept = []
            for doc_id in ids:
                if doc_id in self._index:
                    log.warning("%s: %r is listed in two segments; keeping the first", self.name, doc_id)
                    continue
                self._index[doc_id] = seg
                kept.append(doc_id)
            self._seg_ids[seg] = kept


def _check_id(doc_id: object) -> None:
    if not isinstance(doc_id, str) or not doc_id:
        raise ValueError(f"a document id must be a non-empty string, not {doc_id!r}")
