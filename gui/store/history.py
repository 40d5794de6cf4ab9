"""History segments: finished documents in bounded TinyDB files, each with a small index file.

TinyDB rewrites a whole file on every write, so one file holding every run ever made would make
each save slower than the last. History is split into segments of bounded size; archiving writes
only the latest one. Beside each segment, an index file holds a few fields of each of its documents
(those the store's queries filter and sort on), in archive order:

    history/<name>-0001.json          one segment   {"<name>": {"<id>": {...document...}}}
    history/<name>-0001.index.json    its index     {"index": {"<id>": {"status": ..., ...}}}

Both are TinyDB databases. Every index is read at open (they are small) into a `SegmentView`:
its fields in columns, equal values shared, so a query is
answered column by column rather than entry by entry (see `gui.store.segment_view`); only the latest
segment's index stays open as a TinyDB table, the others are opened again only to change them (a
rare delete). Segments are opened when a document in them is read, and the last few stay parsed
(`cached_segments`). Each segment keeps its answer to a query until it changes (only the latest
one does), so a query over a long history is a merge of ready lists, and only the segments holding
the requested page are read. A page of a segment that is not parsed reads only its own documents'
bytes, where the segment's index file says they lie (`gui.store.slices`, kept there as the segment
is written), rather than parsing the whole segment. With a `Vouching`, the slices also keep the
digest of each document's text that reads back as itself (checked when the segment is written), and
`digests` gives them to a reader who may then send those texts on as they are (`gui.store.vouching`).

One rule keeps a crash harmless: an id is in history exactly when an index lists it, and an index
never lists an id its segment does not hold. A document is written to its segment before its index
lists it, and the index drops it before the segment does. A document in a segment but not in its
index (left by a crash between the two writes) is invisible, and dropped the next time that segment
is written. A segment without an index gets it rebuilt from its documents at open; an index in the
first format (`{"ids": [...]}`, no fields) is rebuilt the same way.

Not thread-safe: used from the store `Writer`'s thread only.
"""

from __future__ import annotations

import logging
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson
from tinydb.queries import QueryLike
from tinydb.table import Document

from gui.atomic import atomic_write, remove_stale_temp_files
from gui.store.catalog import read_catalog, stamp, write_catalog
from gui.store.database import DocTable, IndexTable, open_database
from gui.store.errors import CorruptDatabaseError
from gui.store.files import dumps, json_text, key_text, read_json
from gui.store.segment_view import SegmentView, Selection
from gui.store.slices import KEY as SLICES_KEY
from gui.store.slices import TABLE as SLICES_TABLE
from gui.store.slices import Slices
from gui.store.storage import WholeDocumentStorage
from gui.store.vouching import Vouching

log = logging.getLogger(__name__)

Fields = dict[str, Any]
Indexer = Callable[[Mapping[str, Any]], Fields]
Repair = Callable[[Path], None]  # puts back what can be read of a damaged file (`recovery.repair`)
SortKey = Callable[[Fields, str], Any]
_RANKED_PER_SEGMENT = 16  # queries whose ranked answer each segment keeps
_SLICES_KEPT = 16  # segments whose slices stay in memory (read again from the index file otherwise)
INDEX_TABLE = "index"


class History:
    """The segments of one store: `append`, `replace` and `remove` documents; `ranked` queries the indexes."""

    def __init__(self, folder: Path, name: str, indexer: Indexer, *, segment_docs: int,
                 segment_bytes: int, cached_segments: int, repair: Repair | None = None,
                 vouching: Vouching | None = None) -> None:
        self.folder = folder
        self.name = name
        self._indexer = indexer
        self._repair = repair
        self.repairs = 0  # how many segments were repaired when read (a page read before is stale)
        self._segment_docs = segment_docs
        self._segment_bytes = segment_bytes
        self._cached_segments = cached_segments
        self._tables: dict[int, IndexTable] = {}  # index tables open to be written (the latest segment's)
        self._views: dict[int, SegmentView | None] = {}  # every segment's; None: build from its table on use
        self._ids: dict[int, list[str]] = {}  # each segment's ids in archive order (its index's keys)
        self._where: dict[str, int] = {}
        self._segments: OrderedDict[int, DocTable] = OrderedDict()
        self._slices: OrderedDict[int, Slices | None] = OrderedDict()  # None: the segment has none kept
        self._ranked: dict[int, dict[tuple[QueryLike, SortKey], Selection]] = {}
        self._shadowed: dict[int, tuple[SegmentView, frozenset[int]]] = {}
        self._doubles: dict[int, list[str]] = {}  # ids a segment's index lists that an earlier one holds
        self._where_as_loaded = True
        self._vouching = vouching
        # False once the app closes (`leave_unvouched`): a text written from then on is vouched for only
        # if it was before; checking each new one (read and written again by its model) cost a close
        # with 10,000 runs waiting more than half its time
        self._vouching_new = True
        # the latest written segment's texts as digested: id -> (its entry as the storage keeps it,
        # the digest of its text if vouched for), so a write digests and checks only the new ones
        self._digested: tuple[int, dict[str, tuple[str, bytes | None]]] = (0, {})
        folder.mkdir(parents=True, exist_ok=True)
        self._load()

    # -- reading

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._where

    def __len__(self) -> int:
        return len(self._where)

    def ids(self) -> list[str]:
        return list(self._where)

    def get(self, doc_id: str) -> Document | None:
        seg = self._where.get(doc_id)
        if seg is None:
            return None
        doc = self._segment(seg).doc(doc_id)
        if doc is None:
            log.warning("%s: the index lists %r but its segment does not hold it", self.name, doc_id)
        return doc

    def fields(self, doc_id: str) -> Fields | None:
        seg = self._where.get(doc_id)
        return None if seg is None else self._view(seg).fields(doc_id)

    def page(self, limit: int | None, offset: int, newest_first: bool, exclude: Container[str]) -> list[Document]:
        """Documents in archive order; segments before the page are skipped without being read."""
        page: list[Document] = []
        skip = offset
        for seg in sorted(self._ids, reverse=newest_first):
            if limit is not None and len(page) >= limit:
                break
            ids = [i for i in self._ids[seg] if i not in exclude]
            if newest_first:
                ids.reverse()
            if skip >= len(ids):
                skip -= len(ids)
                continue
            ids, skip = ids[skip:], 0
            if limit is not None:
                ids = ids[: limit - len(page)]
            page += [doc for doc in (self.get(doc_id) for doc_id in ids) if doc is not None]
        return page

    def ranked(self, cond: QueryLike, key: SortKey) -> list[Selection]:
        """For each segment holding entries that match the TinyDB query `cond`: how many, a key none
        of them is above, and their `(key(entry, id), id)` largest first (ordered only when asked).
        Kept per segment until its index changes: only the latest one ever does, so a query over a
        long history orders little more than the segments holding its page."""
        found = []
        cacheable = getattr(cond, "is_cacheable", lambda: True)()
        for seg in sorted(self._views, reverse=True):
            cache = self._ranked.setdefault(seg, {})
            selection = cache.get((cond, key)) if cacheable else None
            if selection is None:
                view = self._view(seg)
                selection = Selection(view, view.choose(cond), key, self._hidden(seg, view))
                if cacheable:
                    while len(cache) >= _RANKED_PER_SEGMENT:
                        del cache[next(iter(cache))]
                    cache[(cond, key)] = selection
            if selection.count:
                found.append(selection)
        return found

    def fetch(self, ids: Iterable[str]) -> dict[str, Document]:
        """The documents with these ids, reading only the segments that hold them."""
        docs: dict[str, Document] = {}
        for doc_id in sorted(ids, key=lambda i: self._where.get(i, 0)):
            doc = self.get(doc_id)
            if doc is not None:
                docs[doc_id] = doc
        return docs

    def texts(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The documents with these ids as their JSON text (a page handed to a caller who parses it
        elsewhere, off this thread): read where the slices say, or as this process wrote it, or else
        rendered from the stored documents without copying them (what orjson refuses, a lone
        surrogate or an integer past 64 bits, is written by `dumps`)."""
        texts: dict[str, bytes] = {}
        by_segment: dict[int | None, list[str]] = {}
        for doc_id in ids:
            by_segment.setdefault(self._where.get(doc_id), []).append(doc_id)
        rest = []
        for seg, of_segment in sorted(by_segment.items(), key=lambda item: item[0] or 0):
            sliced = None if seg is None or seg in self._segments else self._sliced(seg, of_segment)
            if sliced is None:
                rest += of_segment
            else:
                texts.update(sliced)
        for doc_id in rest:
            seg = self._where.get(doc_id)
            table = None if seg is None else self._segment(seg)
            doc = None if table is None else table.raw().get(doc_id)
            if doc is None:
                if seg is not None:
                    log.warning("%s: the index lists %r but its segment does not hold it", self.name, doc_id)
                continue
            assert table is not None
            texts[doc_id] = self._written_text(table, doc_id) or json_text(doc)
        return texts

    def _written_text(self, table: DocTable, doc_id: str) -> bytes | None:
        """The document's text as this process wrote it in the segment's file (what is there now,
        and what the store may vouch for); None when it did not write that file."""
        storage = table.storage
        entry = storage.entry(self.name, doc_id) if isinstance(storage, WholeDocumentStorage) else None
        key = f"{dumps(doc_id)}:"
        return entry[len(key):].encode("utf-8") if entry is not None and entry.startswith(key) else None

    def digests(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The digest of each of these documents' text that the store vouches for (`gui.store.vouching`):
        a text read for one of them (`texts`) that has it is the one the store checked. Those it does
        not vouch for are left out (none without a `Vouching`)."""
        found: dict[str, bytes] = {}
        if self._vouching is None:
            return found
        for doc_id in ids:
            seg = self._where.get(doc_id)
            slices = None if seg is None else self._slices_of(seg)
            digest = None if slices is None else slices.vouched.get(doc_id)
            if digest is not None:
                found[doc_id] = digest
        return found

    def _sliced(self, seg: int, ids: list[str]) -> dict[str, bytes] | None:
        """The JSON text of these documents of `seg`, read where its slices say; None: parse it."""
        slices = self._slices_of(seg)
        return None if slices is None else slices.read(self.segment_path(seg), ids)

    def _slices_of(self, seg: int) -> Slices | None:
        if seg in self._slices:
            self._slices.move_to_end(seg)
            return self._slices[seg]
        slices = None
        try:
            saved = (self._tables[seg].beside(SLICES_TABLE) if seg in self._tables
                     else (read_json(self.index_path(seg)) or {}).get(SLICES_TABLE))
            if isinstance(saved, dict):
                slices = Slices.decode(saved.get(SLICES_KEY), self._view(seg).ids)
        except CorruptDatabaseError:  # read again (and repaired) when the index is next needed
            slices = None
        self._keep_slices(seg, slices)
        return slices

    def _keep_slices(self, seg: int, slices: Slices | None) -> None:
        self._slices[seg] = slices
        self._slices.move_to_end(seg)
        while len(self._slices) > _SLICES_KEPT:
            self._slices.popitem(last=False)

    # -- writing

    def append(self, items: Mapping[str, tuple[Mapping[str, Any], Fields]],
               texts: Mapping[str, str] | None = None) -> int:
        """Add new documents (id → (document, index fields)), one write per segment filled.

        `texts`: for some of them, their JSON text as an entry `"<id>":{...}` (the hot documents keep
        it): those documents are then the store's, kept uncopied, and their text is written as it is."""
        texts = texts or {}
        seg = self._target_segment()
        size = self._segment_size(seg)
        batch: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        for doc_id, item in items.items():
            if doc_id in self._where:
                raise ValueError(f"{doc_id!r} is already stored")
            batch[doc_id] = item
            text = texts.get(doc_id)
            size += (len(text) + 1) if text is not None else _size_of(item[0]) + len(doc_id) + 4
            if len(self._ids.get(seg, [])) + len(batch) >= self._segment_docs or size >= self._segment_bytes:
                self._write(seg, batch, texts)
                seg, batch, size = seg + 1, {}, 0
        if batch:
            self._write(seg, batch, texts)
        return len(items)

    def replace(self, doc_id: str, doc: Mapping[str, Any], fields: Fields) -> None:
        """Rewrite an archived document in its segment (and its index entry, if its fields changed)."""
        seg = self._where[doc_id]
        ids = self._ids[seg]
        self._segment(seg).commit(put={doc_id: doc}, keep=set(ids))
        put = {doc_id: fields} if self.fields(doc_id) != fields else None
        self._commit_index(seg, put=put, keep=set(ids), slices=self._written(seg, ids))

    def remove(self, doc_id: str) -> bool:
        seg = self._where.pop(doc_id, None)
        if seg is None:
            return False
        ids = [i for i in self._ids[seg] if i != doc_id]
        self._commit_index(seg, keep=set(ids))  # its slices are gone with it: the segment is parsed
        self._ids[seg] = ids
        self._segment(seg).commit(keep=set(ids))
        return True

    def leave_unvouched(self) -> None:
        """From now on, vouch for no text that was not vouched for before (`gui.store.vouching`): the app
        is closing, and what its end moves here (every run and request still waiting) is read on each
        page as any text the store does not vouch for is, rather than checked now, while it closes."""
        self._vouching_new = False

    def close(self) -> None:
        """Forget the parsed segments. Nothing is pending: every write is already on disk."""
        self._segments.clear()

    # -- internals

    def segment_path(self, seg: int) -> Path:
        return self.folder / f"{self.name}-{seg:04d}.json"

    def index_path(self, seg: int) -> Path:
        return self.folder / f"{self.name}-{seg:04d}.index.json"

    def _write(self, seg: int, batch: Mapping[str, tuple[Mapping[str, Any], Fields]],
               texts: Mapping[str, str]) -> None:
        ids = self._ids.get(seg, [])
        table = self._segment(seg)
        given = {doc_id: (doc, texts[doc_id]) for doc_id, (doc, _) in batch.items() if doc_id in texts}
        if given and isinstance(table.storage, WholeDocumentStorage):
            table.storage.know(self.name, given)
        else:
            given = {}
        table.commit(put={doc_id: doc for doc_id, (doc, _) in batch.items() if doc_id not in given}, keep=set(ids),
                     owned={doc_id: doc for doc_id, (doc, _) in given.items()})
        if seg not in self._views:
            self._open_index(seg)
        # index entries are flat fields: a shallow copy each, handed to the table (no deep copy through JSON)
        self._commit_index(seg, owned={doc_id: dict(fields) for doc_id, (_, fields) in batch.items()}, keep=set(ids),
                           slices=self._written(seg, [*ids, *batch]))
        self._ids[seg] = [*ids, *batch]
        self._where.update(dict.fromkeys(batch, seg))

    def _segment(self, seg: int) -> DocTable:
        table = self._segments.get(seg)
        if table is None:
            try:
                table = open_database(self.segment_path(seg), clean_temp=False).table(self.name)
            except CorruptDatabaseError as exc:
                if self._repair is None:
                    raise
                self._repair(exc.path)  # segments are read when needed: one may be found damaged now
                self._reload_index(seg)
                self.repairs += 1
                table = open_database(self.segment_path(seg), clean_temp=False).table(self.name)
            self._segments[seg] = table
            while len(self._segments) > self._cached_segments:
                self._segments.popitem(last=False)
        else:
            self._segments.move_to_end(seg)
        return table

    def _segment_size(self, seg: int) -> int:
        table = self._segments.get(seg)
        if table is not None:
            return int(getattr(table.storage, "size", 0))
        try:
            return os.stat(self.segment_path(seg)).st_size
        except FileNotFoundError:
            return 0

    def _target_segment(self) -> int:
        """Where a newly archived document goes: the latest segment, or a new one if that is full."""
        if not self._ids:
            return 1
        latest = max(self._ids)
        if len(self._ids[latest]) < self._segment_docs and self._segment_size(latest) < self._segment_bytes:
            return latest
        return latest + 1

    def _open_index(self, seg: int) -> IndexTable:
        """Open the index of `seg` as a table (to change it); its view is made from it when used.
        Only the latest segment's table stays open: an older one's view is made now, its table let go."""
        table = open_database(self.index_path(seg), index=True, clean_temp=False).table(INDEX_TABLE)
        self._tables[seg] = table
        self._views[seg] = None
        self._ranked.pop(seg, None)
        for other in [s for s in self._tables if s < seg]:
            self._view(other)
            del self._tables[other]
        return table

    def _hidden(self, seg: int, view: SegmentView) -> frozenset[int]:
        """Positions in the view of `seg` whose id history holds elsewhere (listed twice: the first
        segment wins): nearly always none. Known from the open, until a repair moved ids about."""
        known = self._shadowed.get(seg)
        if known is not None and known[0] is view:
            return known[1]
        if self._where_as_loaded:
            doubles = self._doubles.get(seg, ())
            positions = (view.position(doc_id) for doc_id in doubles)
            hidden = frozenset(p for p in positions if p is not None)
        else:
            where = self._where
            hidden = frozenset(p for p, doc_id in enumerate(view.ids) if where.get(doc_id) != seg)
        self._shadowed[seg] = (view, hidden)
        return hidden

    def _table(self, seg: int) -> IndexTable:
        table = self._tables.get(seg)
        return table if table is not None else self._open_index(seg)

    def _view(self, seg: int) -> SegmentView:
        view = self._views.get(seg)
        if view is None:
            view = self._views[seg] = SegmentView.of(self._tables[seg].raw())
        return view

    def _written(self, seg: int, ids: list[str]) -> Slices | None:
        """Where the documents of `ids` (the index's, in order) lie in `seg` as just written."""
        storage = self._segment(seg).storage
        if not isinstance(storage, WholeDocumentStorage):
            return Slices.of(self.segment_path(seg), ids, {})
        spans = storage.spans.get(self.name, {})
        return Slices.of(self.segment_path(seg), ids, spans, self._vouched(seg, storage, ids))

    def _vouched(self, seg: int, storage: WholeDocumentStorage, ids: list[str]) -> dict[str, bytes]:
        """The digests of the texts of `seg` as just written that the store vouches for: a text
        vouched for before (the same digest in the segment's slices until now), or one the
        `Vouching` finds reads back as itself. Each text is digested once while it stays the same."""
        vouching = self._vouching
        if vouching is None:
            return {}
        before = self._slices_of(seg)
        trusted = before.vouched if before is not None else {}
        if not self._vouching_new and not trusted:  # closing, and nothing here vouched for before: none is now
            self._digested = (seg, {})
            return {}
        known = self._digested[1] if self._digested[0] == seg else {}
        now: dict[str, tuple[str, bytes | None]] = {}
        for doc_id in ids:
            entry = storage.entry(self.name, doc_id)
            if entry is None:
                continue
            seen = known.get(doc_id)
            if seen is not None and seen[0] is entry:
                now[doc_id] = seen
                continue
            if not self._vouching_new and doc_id not in trusted:  # left unvouched: read on each page as before
                now[doc_id] = (entry, None)
                continue
            key = f"{key_text(doc_id)}:"  # (the same text as `dumps`, without rendering a plain id)
            if not entry.startswith(key):  # no span either (`WholeDocumentStorage`)
                continue
            text = entry[len(key):].encode("utf-8")
            digest = vouching.digest(doc_id, text)
            if trusted.get(doc_id) != digest and (not self._vouching_new or not vouching.vouches(text)):
                now[doc_id] = (entry, None)
            else:
                now[doc_id] = (entry, digest)
        self._digested = (seg, now)
        return {doc_id: digest for doc_id, (_, digest) in now.items() if digest is not None}

    def _commit_index(self, seg: int, slices: Slices | None = None, **change: Any) -> None:
        """Change the index of `seg`; its slices are written with it when given, else dropped (what
        the segment holds is then known by parsing it)."""
        kept = {SLICES_KEY: slices.encode()} if slices is not None else {}
        self._table(seg).commit(**change, beside={SLICES_TABLE: kept})
        self._keep_slices(seg, slices)
        self._views[seg] = None
        self._ranked.pop(seg, None)
        if seg != max(self._views):  # an older segment changed (a delete): its table is let go again
            self._view(seg)
            del self._tables[seg]

    def _rebuild_index(self, seg: int, ids: list[str] | None, why: str) -> IndexTable:
        """Write the index of `seg` from its documents (only `ids`, in that order, if given)."""
        segment = self._segment(seg)
        held = segment.ids()
        present = set(held)
        chosen = held if ids is None else [i for i in ids if i in present]
        entries = {}
        for doc_id in chosen:
            doc = segment.doc(doc_id)
            entries[doc_id] = self._indexer(doc) if doc is not None else {}
        atomic_write(self.index_path(seg), dumps({INDEX_TABLE: entries}).encode("ascii"))
        log.warning("%s: %s %s", self.name, why, self.index_path(seg))
        return self._open_index(seg)

    def _reload_index(self, seg: int) -> None:
        """Take the index of `seg` from its file again (a repair narrowed it to what was saved)."""
        if self.index_path(seg).exists():
            ids = self._open_index(seg).ids()
        else:
            ids = self._rebuild_index(seg, None, "rebuilt the index of a repaired segment").ids()
        kept = [i for i in ids if self._where.get(i, seg) == seg]
        for doc_id in self._ids.get(seg, []):
            if self._where.get(doc_id) == seg:
                del self._where[doc_id]
        self._where.update(dict.fromkeys(kept, seg))
        self._ids[seg] = kept
        self._shadowed.clear()  # which segment holds an id may have changed for any of them
        self._where_as_loaded = False
        self._ranked.clear()

    def _load_index(self, seg: int) -> IndexTable:
        try:
            return self._open_index(seg)
        except CorruptDatabaseError:
            legacy = read_json(self.index_path(seg)) or {}
            ids = legacy.get("ids")
            if set(legacy) != {"ids"} or not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise
            return self._rebuild_index(seg, ids, "added the query fields to the index")

    def _load(self) -> None:
        pattern = re.compile(rf"^{re.escape(self.name)}-(\d+)(\.index)?\.json$")
        found: dict[int, set[str]] = {}
        for entry in os.scandir(self.folder):
            match = pattern.match(entry.name)
            if match:
                found.setdefault(int(match[1]), set()).add("index" if match[2] else "data")
        remove_stale_temp_files(self.folder / f"{self.name}-[0-9]*.json")
        remove_stale_temp_files(self.catalog_path)
        catalog = self._read_catalog()
        newest = max(found, default=None)
        stale = 0
        for seg in sorted(found):
            saved = catalog.get(seg)
            view = None
            if saved is not None and seg != newest and found[seg] == {"data", "index"}:
                stamp, data = saved
                view = SegmentView.decode(data) if stamp == self._stamp(seg) else None
            if view is not None:
                self._views[seg] = view
                self._register(seg, view.ids)
            else:
                self._load_segment(seg, found[seg])
                stale += seg != newest
        if stale:
            self._write_catalog()
        latest = max(self._tables, default=None)
        for seg in list(self._tables):  # the latest segment's table stays open: archiving writes it
            if seg != latest:
                self._view(seg)
                del self._tables[seg]

    @property
    def catalog_path(self) -> Path:
        return self.folder / f"{self.name}.catalog.json"

    def _stamp(self, seg: int) -> list[int] | None:
        return stamp(self.index_path(seg))

    def _read_catalog(self) -> dict[int, tuple[Any, Any]]:
        return read_catalog(self.catalog_path, self.name)

    def _write_catalog(self) -> None:
        """Keep the views of the closed segments (all but the latest) beside them, for the next open."""
        newest = max(self._views, default=None)
        write_catalog(self.catalog_path, self.name,
                      {seg: (self._stamp(seg), self._view(seg)) for seg in sorted(self._views) if seg != newest})

    def _register(self, seg: int, ids: list[str]) -> None:
        """`seg` holds `ids` (unless an earlier segment already does: the first wins)."""
        if not self._where.keys() & ids:  # the usual case, at C speed
            self._where.update(dict.fromkeys(ids, seg))
            self._ids[seg] = list(ids)
            return
        kept = []
        for doc_id in ids:
            if doc_id in self._where:
                log.warning("%s: %r is listed in two segments; keeping the first", self.name, doc_id)
                self._doubles.setdefault(seg, []).append(doc_id)
                continue
            self._where[doc_id] = seg
            kept.append(doc_id)
        self._ids[seg] = kept

    def _load_segment(self, seg: int, files: set[str]) -> None:
        if "data" not in files:
            index = self._load_index(seg)
            if len(index):
                log.warning("%s: segment %s is missing; the documents its index lists are lost",
                            self.name, self.segment_path(seg))
            ids: list[str] = []
        elif "index" in files:
            ids = self._load_index(seg).ids()
        else:
            ids = self._rebuild_index(seg, None, "rebuilt the missing index").ids()
        self._register(seg, ids)


def _size_of(doc: Mapping[str, Any]) -> int:
    """About how many bytes `doc` takes in a segment (to bound its size): orjson's length, ten times
    faster than rendering it as the segment will; `dumps` for what orjson refuses."""
    try:
        return len(orjson.dumps(doc))
    except TypeError:
        return len(dumps(doc))
