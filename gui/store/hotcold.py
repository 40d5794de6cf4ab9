"""Hot documents and their growing history, kept apart so that writes do not slow down as history grows.

A `HotColdStore` keeps the documents still changing (running runs, pending interactions, saved
sequences) hot, and moves finished ones into bounded history segments (`History`). No write grows
with the size of the history, nor with how many documents are hot:

    <folder>/<name>.json        hot documents, as of the last compaction   {"<name>": {"<id>": {...}}}
    <folder>/<name>.journal     hot changes since then, a line each (see `gui.store.journal`)
    <folder>/history/...        segments and their indexes (see `gui.store.history`)

A change of hot documents is one line appended to the journal; a history segment is a TinyDB
database on a `WholeDocumentStorage` (parsed once, written atomically). Every call is on disk when
it returns, or, given `sync_later` (`Writer.sync_later`), before the writer hands out its result.
The hot documents' index fields are kept in memory (few compared with history), so a query filters
hot and history alike with one TinyDB query over index entries (`find`).

`archive` writes history first and removes the hot copy last. A crash in between leaves the same
document in both places. Reads then prefer the hot copy: `get` and `list_hot` return it,
`iter_history`, `count_history` and `find` skip the history one. Hot is the right copy because
archiving copies it unchanged and every later `put_hot` lands there, so it is never older than the
history copy. Calling `archive` again finishes the move.

Not thread-safe: call it from one thread only (the store `Writer`'s).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from tinydb.queries import QueryLike
from tinydb.table import Document

from gui.store import merge
from gui.store.files import dumps, json_text, key_text
from gui.store.history import Fields, History, Indexer, Repair, SortKey
from gui.store.journal import JournaledTable, Later, SyncLater
from gui.store.vouching import Vouching

log = logging.getLogger(__name__)

_NAME = re.compile(r"^[A-Za-z0-9_]+$")
T = TypeVar("T")


def no_fields(doc: Mapping[str, Any]) -> Fields:
    return {}


class HotColdStore:
    """Documents keyed by string id: a hot set that changes, and an append-mostly history.

    `indexer` gives the fields a query filters and sorts on, for a document whose fields were not
    given (at open, when rebuilding an index). `segment_docs` and `segment_bytes` bound each history
    segment (whichever is reached first); `cached_segments` is how many segments stay parsed.
    `repair` is called with a history segment found damaged when it is first read (segments are
    not read at open); without it, that read raises `CorruptDatabaseError`. `sync_later` and `later`
    go to the hot documents' `JournaledTable` (the writer's fsync of a change, and compactions as
    housekeeping). `vouching`: which history texts the store vouches for (`gui.store.vouching`).
    """

    def __init__(
        self,
        folder: Path | str,
        name: str,
        *,
        indexer: Indexer = no_fields,
        segment_docs: int = 1000,
        segment_bytes: int = 4 * 1024 * 1024,
        cached_segments: int = 4,
        repair: Repair | None = None,
        sync_later: SyncLater | None = None,
        later: Later | None = None,
        vouching: Vouching | None = None,
    ) -> None:
        if not _NAME.match(name):
            raise ValueError(f"store name {name!r} must be letters, digits and underscores")
        if segment_docs < 1 or segment_bytes < 1 or cached_segments < 1:
            raise ValueError("segment_docs, segment_bytes and cached_segments must be positive")
        self.folder = Path(folder)
        self.name = name
        self.history_folder = self.folder / "history"
        self._indexer = indexer
        # a compaction waits while final documents wait to move to history (the move removes them)
        self._hot = JournaledTable(self.folder / f"{name}.json", name, sync_later=sync_later, later=later,
                                   hold=lambda: bool(self._to_archive))
        self._hot_fields: dict[str, Fields] = {doc_id: indexer(doc) for doc_id, doc in self._hot.take_loaded().items()}
        # Final hot documents to move to history (`archive_pending`), with the document and its JSON
        # text as `settle_all` put them (None: read it from the hot documents).
        self._to_archive: dict[str, tuple[Mapping[str, Any], str] | None] = {}
        # The app is closing (`closing`): what `settle_all` makes final goes to history at once.
        self._closing = False
        self.history = History(self.history_folder, name, indexer, segment_docs=segment_docs,
                               segment_bytes=segment_bytes, cached_segments=cached_segments, repair=repair,
                               vouching=vouching)

    # -- reading

    def __len__(self) -> int:
        """How many documents are stored, hot or not (one left in both by a crash counts once)."""
        return len(self._hot_fields) + self.count_history()

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._hot_fields or doc_id in self.history

    def get(self, doc_id: str) -> Document | None:
        """The document, hot copy first; None if it is stored nowhere."""
        doc = self._hot.doc(doc_id)
        return doc if doc is not None else self.history.get(doc_id)

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """Up to `limit` ids, hot or not, that start with `prefix` (from the indexes: no segment is read)."""
        found = [doc_id for doc_id in self._hot_fields if doc_id.startswith(prefix)]
        found += [doc_id for doc_id in self.history.ids()
                  if doc_id.startswith(prefix) and doc_id not in self._hot_fields]
        return found[:limit]

    def list_hot(self) -> list[Document]:
        """Every hot document, in the order they were first put."""
        return self._hot.all()

    def search_hot(self, cond: QueryLike) -> list[Document]:
        """The hot documents matching a TinyDB query over the documents themselves."""
        return self._hot.search(cond)

    def iter_history(
        self, limit: int | None = None, offset: int = 0, newest_first: bool = True
    ) -> list[Document]:
        """A page of history in archive order, newest first by default.

        A list, not an iterator: a lazy iterator would read segments on whatever thread consumes it.
        """
        if offset < 0 or (limit is not None and limit < 0):
            raise ValueError("limit and offset must not be negative")
        return self.history.page(limit, offset, newest_first, exclude=self._hot_fields)

    def count_history(self) -> int:
        """How many documents are in history only (those still hot count as hot)."""
        return len(self.history) - sum(1 for doc_id in self._hot_fields if doc_id in self.history)

    def find(self, cond: QueryLike, key: SortKey, limit: int | None = None,
             offset: int = 0) -> tuple[list[Document], int]:
        """A page of the documents, hot or not, whose index fields match `cond`, largest
        `key(fields, id)` first, and how many match in all. Only the page's segments are read."""
        return self._paged(cond, key, limit, offset, self._documents)

    def find_texts(self, cond: QueryLike, key: SortKey, limit: int | None = None,
                   offset: int = 0) -> tuple[list[tuple[str, str | bytes]], int]:
        """`find`, each document as (id, its JSON text) rather than a copy: for a caller that parses
        the page itself, off this thread (this one is the store's, which an answer may be waiting for).
        A hot document's text is the one it is kept as; a history one's is rendered by orjson
        (`History.texts`)."""
        return self._paged(cond, key, limit, offset, self._texts)

    def find_vouched_texts(self, cond: QueryLike, key: SortKey, limit: int | None = None,
                           offset: int = 0) -> tuple[list[tuple[str, str | bytes, bytes | None]], int]:
        """`find_texts`, each text with the digest it has when the store vouches for it (None: it
        does not): the caller checks the digest (`Vouching.matches`) off this thread."""
        return self._paged(cond, key, limit, offset, self._vouched_texts)

    def _paged(self, cond: QueryLike, key: SortKey, limit: int | None, offset: int,
               read: Callable[[list[str]], list[T]]) -> tuple[list[T], int]:
        if offset < 0 or (limit is not None and limit < 0):
            raise ValueError("limit and offset must not be negative")
        repairs = self.history.repairs
        chosen, total = self._find(cond, key, limit, offset)
        page = read(chosen)
        if self.history.repairs != repairs:  # a segment of the page was found damaged: count again
            chosen, total = self._find(cond, key, limit, offset)
            page = read(chosen)
        return page, total

    def _find(self, cond: QueryLike, key: SortKey, limit: int | None, offset: int) -> tuple[list[str], int]:
        """The ids of the page, in order, and how many match in all."""
        hot = sorted(((key(fields, doc_id), doc_id) for doc_id, fields in self._hot_fields.items() if cond(fields)),
                     reverse=True)
        history = self.history.ranked(cond, key)
        total = len(hot) + sum(s.count for s in history)
        both = {doc_id for doc_id in self._hot_fields if doc_id in self.history}  # left by a crash: hot wins
        rows: Iterable[tuple[Any, str]]
        if both:
            listed = [[row for row in s.rows() if row[1] not in both] for s in history]
            total = len(hot) + sum(map(len, listed))
            wanted = None if limit is None else offset + limit
            rows = itertools.islice(heapq.merge(hot, *listed, reverse=True), wanted)
            rows = itertools.islice(rows, offset, None)
        else:
            rows = merge.page(hot, history, offset, limit)
        return [doc_id for _, doc_id in rows], total

    def _documents(self, chosen: list[str]) -> list[Document]:
        from_history = self.history.fetch(i for i in chosen if i not in self._hot_fields)
        page = []
        for doc_id in chosen:
            doc = self._hot.doc(doc_id) if doc_id in self._hot_fields else from_history.get(doc_id)
            if doc is not None:
                page.append(doc)
        return page

    def _texts(self, chosen: list[str]) -> list[tuple[str, str | bytes]]:
        from_history = self.history.texts(i for i in chosen if i not in self._hot_fields)
        page: list[tuple[str, str | bytes]] = []
        for doc_id in chosen:
            text = self._hot_text(doc_id) if doc_id in self._hot_fields else from_history.get(doc_id)
            if text is not None:
                page.append((doc_id, text))
        return page

    def _vouched_texts(self, chosen: list[str]) -> list[tuple[str, str | bytes, bytes | None]]:
        page = self._texts(chosen)
        digests = self.history.digests(doc_id for doc_id, _ in page if doc_id not in self._hot_fields)
        return [(doc_id, text, digests.get(doc_id)) for doc_id, text in page]

    def _hot_text(self, doc_id: str) -> str | bytes | None:
        """A hot document's JSON text: its entry `"<id>":{...}` less the key (read again and
        rendered by orjson when the key is written otherwise, an id with characters to escape)."""
        entry = self._hot.entry(doc_id)
        if entry is None:
            return None
        key = f'"{doc_id}":'
        if entry.startswith(key):
            return entry[len(key):]
        doc = self._hot.value(doc_id)
        return None if doc is None else json_text(doc)

    # -- writing

    def put_hot(self, doc_id: str, doc: Mapping[str, Any], fields: Fields | None = None) -> None:
        """Create or replace (not merge) a hot document; it is on disk when this returns."""
        _check_id(doc_id)
        self._hot.put(doc_id, doc)
        self._hot_fields[doc_id] = self._indexer(doc) if fields is None else dict(fields)

    def swap_hot(self, old_id: str, new_id: str, doc: Mapping[str, Any]) -> None:
        """Remove `old_id` and put `new_id` in one change of the hot documents (a rename): a crash leaves
        the one or the other, never neither. Sequences are hot documents only."""
        _check_id(new_id)
        self._hot.commit(put={new_id: doc}, remove=[old_id] if old_id != new_id else [])
        self._hot_fields.pop(old_id, None)
        self._hot_fields[new_id] = self._indexer(doc)

    def archive(self, doc_id: str) -> None:
        """Move a document from hot to history. Already archived: nothing to do. Unknown: `KeyError`."""
        doc = self._hot.doc(doc_id)
        if doc is None:
            if doc_id in self.history:
                return
            raise KeyError(doc_id)
        fields = self._hot_fields.get(doc_id)
        if fields is None:
            fields = self._indexer(doc)
        if doc_id in self.history:
            self.history.replace(doc_id, doc, fields)
        else:
            self.history.append({doc_id: (doc, fields)})
        self._hot.commit(remove=[doc_id])
        self._hot_fields.pop(doc_id, None)

    def finish(self, doc_id: str, doc: Mapping[str, Any], fields: Fields | None = None) -> None:
        """Store a document that will not change again: in history, by the shortest safe way."""
        _check_id(doc_id)
        fields = self._indexer(doc) if fields is None else dict(fields)
        if doc_id in self._hot_fields:
            self.put_hot(doc_id, doc, fields)
            self.archive(doc_id)
        elif doc_id in self.history:
            self.history.replace(doc_id, doc, fields)
        else:
            self.history.append({doc_id: (doc, fields)})

    def save_all(self, items: Iterable[tuple[str, Mapping[str, Any], Fields, bool]]) -> None:
        """Each (id, document, fields, final) in turn: `finish` the final ones, `put_hot` the others.
        Final documents new to the store are appended to history together, one write per segment."""
        fresh: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        for doc_id, doc, fields, final in items:
            if final and (doc_id in fresh or doc_id not in self):
                _check_id(doc_id)
                fresh[doc_id] = (doc, fields)
                continue
            if doc_id in fresh:
                self.history.append(fresh)
                fresh = {}
            if final:
                self.finish(doc_id, doc, fields)
            else:
                self.put_hot(doc_id, doc, fields)
        if fresh:
            self.history.append(fresh)

    def settle_all(self, items: Iterable[tuple[str, Mapping[str, Any], Fields, bool]]) -> bool:
        """`save_all`, except that final documents hot now are only put (final) in the hot documents,
        in one change, and left for `archive_pending` to move to history a moment later. So an answered
        request is on disk after one line of the journal (one fsync) and its waiting tool goes on,
        while the move (three writes, for however many are waiting) follows. A crash in between leaves them hot,
        final, and found as such by every query. True when something waits to be archived. Once the
        app is closing (`closing`), they go to history at once instead (`_move_now`).

        The documents of final items are the store's from then on: they are kept, uncopied, with
        their JSON text until the move, which then neither parses nor renders them again."""
        batch: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        rest: list[tuple[str, Mapping[str, Any], Fields, bool]] = []  # in one `save_all`: one write per segment
        for doc_id, doc, fields, final in items:
            if final and doc_id in self._hot_fields:
                if rest:
                    self.save_all(rest)
                    rest = []
                batch[doc_id] = (doc, fields)
                continue
            if batch:
                self._settle_final(batch)
                batch = {}
            rest.append((doc_id, doc, fields, final))
        if rest:
            self.save_all(rest)
        if batch:
            self._settle_final(batch)
        return bool(self._to_archive)

    def closing(self) -> None:
        """The app is closing: from now on, what `settle_all` makes final (every run and request still
        waiting, ended by the close) goes to history at once (`_move_now`), in one write of it and one
        change of the hot documents, instead of being put hot first and moved after (a second write of
        each: half of what a close with thousands waiting wrote); nor does history vouch for its texts
        (`History.leave_unvouched`)."""
        self._closing = True
        self.history.leave_unvouched()

    def _settle_final(self, batch: Mapping[str, tuple[Mapping[str, Any], Fields]]) -> None:
        if self._closing:
            self._move_now(batch)
        else:
            self._put_hot_many(batch)

    def _move_now(self, batch: Mapping[str, tuple[Mapping[str, Any], Fields]]) -> None:
        """Final documents hot now, straight to history: written there first, then their hot copies
        removed (one change). Nobody is told of the write before both are on disk (the writer hands out
        no result before). A crash in between leaves each in both places, the hot copy older: reads
        prefer it, as for any document in both, so it reads as if this write had not been made (and
        start-up ends what it left pending or running, as after any crash before the write)."""
        fresh: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        texts: dict[str, str] = {}  # (rendered once: the segment's size is counted from them too)
        for doc_id, (doc, fields) in batch.items():
            if doc_id in self.history:  # (left in both by a crash in a move)
                self.history.replace(doc_id, doc, fields)
            else:
                fresh[doc_id] = (doc, fields)
                texts[doc_id] = f"{key_text(doc_id)}:{dumps(doc)}"
        if fresh:
            self.history.append(fresh, texts)
        self._hot.commit(remove=list(batch))
        for doc_id in batch:
            self._hot_fields.pop(doc_id, None)
            self._to_archive.pop(doc_id, None)

    def _put_hot_many(self, batch: Mapping[str, tuple[Mapping[str, Any], Fields]]) -> None:
        self._hot.commit(put={doc_id: doc for doc_id, (doc, _) in batch.items()})
        for doc_id, (doc, fields) in batch.items():
            self._hot_fields[doc_id] = dict(fields)
            text = self._hot.entry(doc_id)
            self._to_archive[doc_id] = None if text is None or type(doc) is not dict else (doc, text)

    def archive_pending(self) -> int:
        """Move to history every hot document `settle_all` or `archive_hot` left final: one write of
        the latest segment, of its index and one change of the hot documents, however many. Returns how many."""
        held = {doc_id: kept for doc_id, kept in self._to_archive.items() if doc_id in self._hot_fields}
        self._to_archive.clear()
        ids = list(held)
        fresh: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        texts: dict[str, str] = {}
        for doc_id, kept in held.items():
            if kept is not None and self._hot.entry(doc_id) is kept[1]:  # as `settle_all` put it
                doc: Mapping[str, Any] | None = kept[0]
                texts[doc_id] = kept[1]
            else:  # put again since, or left final by a stopped process: read it
                doc = self._hot.value(doc_id)
            if doc is None:
                continue
            if doc_id in self.history:
                self.history.replace(doc_id, doc, self._hot_fields[doc_id])
            else:
                fresh[doc_id] = (doc, self._hot_fields[doc_id])
        if fresh:
            self.history.append(fresh, texts)
        if ids:
            self._hot.commit(remove=ids)
            for doc_id in ids:
                self._hot_fields.pop(doc_id, None)
        return len(ids)

    def archive_hot(self, final: Callable[[Fields], bool]) -> int:
        """Archive the hot documents whose index fields say they are `final` (at open: those a
        stopped process left final in the hot documents). Returns how many."""
        self._to_archive.update(dict.fromkeys(i for i, fields in self._hot_fields.items() if final(fields)))
        return self.archive_pending()

    def delete(self, doc_id: str) -> bool:
        """Remove a document from hot and history; False if it was stored nowhere."""
        found = self.history.remove(doc_id)
        if doc_id in self._hot_fields:
            self._hot.commit(remove=[doc_id])
            self._hot_fields.pop(doc_id, None)
            found = True
        return found

    def add_history(self, items: Iterable[tuple[str, Mapping[str, Any]]]) -> int:
        """Append documents straight to history, one write per filled segment (imports, benchmarks).

        Ids already stored are refused with `ValueError`, before anything is written.
        """
        batch: dict[str, tuple[Mapping[str, Any], Fields]] = {}
        for doc_id, doc in items:
            _check_id(doc_id)
            if doc_id in self.history or doc_id in self._hot_fields or doc_id in batch:
                raise ValueError(f"{doc_id!r} is already stored")
            batch[doc_id] = (doc, self._indexer(doc))
        return self.history.append(batch)

    def compact(self) -> None:
        """Write the hot documents' snapshot again and empty their journal (see `gui.store.journal`)."""
        self._hot.compact()

    def close(self) -> None:
        """Compact the hot documents and forget the parsed segments (every write is already on disk).
        The store can still be used: it opens its files again when needed."""
        try:
            self._hot.close()
        finally:
            self.history.close()


def _check_id(doc_id: object) -> None:
    if not isinstance(doc_id, str) or not doc_id:
        raise ValueError(f"a document id must be a non-empty string, not {doc_id!r}")
