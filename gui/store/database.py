"""The TinyDB flavour the store uses: string ids, documents replaced whole, one write per change.

TinyDB gives tables integer ids and changes documents by merging fields into them in place. The
store's documents are keyed by the ids they already have (a run id, an interaction id) and are
always replaced whole (a record is saved as it now is), so `DocTable`:

- keys documents by string (`document_id_class = str`, TinyDB's documented way to change the id
  type) and refuses `insert` without an id;
- adds `commit`, which puts, removes and filters documents in one write (through TinyDB's
  `_update_table`, the one primitive its own `insert`/`remove` use), and `put`, a replace;
- refuses `update`/`upsert`, which would change a stored document in place: with
  `WholeDocumentStorage` a document must stay the object it was when written;
- hands out copies (`CopiedDocument`): changing a returned document never changes the store (and
  keeps no query cache, whose answers TinyDB hands out again uncopied);
- reads by string id through `doc` and `docs`: TinyDB types its ids as int (`get(doc_id=...)`,
  `Document.doc_id`), its default id class, so these are the typed way in for this table's ids.

`IndexTable` holds small flat index entries for queries: it returns them uncopied, for speed, and
nothing outside the store ever sees them. `open_database` opens a file as a `Database` (or, with
`index=True`, an `IndexDatabase`), whose `table` is typed as the table class it makes.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, NoReturn, overload

import orjson
from tinydb import TinyDB
from tinydb.queries import QueryLike
from tinydb.storages import Storage
from tinydb.table import Document, Table

from gui.store.storage import WholeDocumentStorage


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars): three times faster than `copy.deepcopy`."""
    kind = type(value)
    if kind is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if kind is list:
        return [json_copy(v) for v in value]
    return value


def document_copy(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a stored document: through orjson, ten times faster than `json_copy` for a run's
    record, and taken only when it is equal to the original (so a value orjson would write otherwise,
    an infinity, a NaN, is never changed); `json_copy` otherwise (and for what orjson refuses)."""
    try:
        copied = orjson.loads(orjson.dumps(doc))
    except (TypeError, orjson.JSONEncodeError, orjson.JSONDecodeError):
        return json_copy(dict(doc))
    return copied if type(copied) is dict and copied == doc else json_copy(dict(doc))


class StoredDocument(Document):
    """A document of a `DocTable`: its `doc_id` is the string it is stored under.

    TinyDB's `Document` takes `doc_id: int`, its default id class; this constructor takes the id a
    table with `document_id_class = str` passes (a str). The data is TinyDB's usual shallow copy.
    """

    def __init__(self, value: Mapping[str, Any], doc_id: Any) -> None:
        super().__init__(value, doc_id)


class CopiedDocument(StoredDocument):
    """A `StoredDocument` that owns its data (a deep copy of the stored one)."""

    def __init__(self, value: Mapping[str, Any], doc_id: Any) -> None:
        super().__init__(document_copy(value), doc_id)


class DocTable(Table):
    """A TinyDB table keyed by string ids whose documents are replaced whole."""

    document_class: type[StoredDocument] = CopiedDocument
    # TinyDB's documented way to change the id type, but its `Table` infers `type[int]` from the
    # default (`document_id_class = int`), so any other id class is an [assignment] error there.
    document_id_class = str  # type: ignore[assignment]

    def __init__(self, storage: Storage, name: str, cache_size: int = 0, persist_empty: bool = False) -> None:
        super().__init__(storage, name, cache_size, persist_empty)

    def commit(
        self,
        put: Mapping[str, Mapping[str, Any]] | None = None,
        remove: Iterable[str] = (),
        keep: Container[str] | None = None,
        owned: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """One write: drop ids not in `keep` (if given) and those in `remove`, then set `put` (copied)
        and `owned` (documents handed over to the table: stored as they are, never changed after)."""
        fresh: dict[str, Any] = {doc_id: document_copy(doc) for doc_id, doc in (put or {}).items()}
        if owned:
            fresh.update(owned)
        gone = list(remove)

        def change(table: dict[str, Any]) -> None:
            if keep is not None:
                for doc_id in [d for d in table if d not in keep]:
                    del table[doc_id]
            for doc_id in gone:
                table.pop(doc_id, None)
            table.update(fresh)

        self._update_table(change)  # type: ignore[arg-type]  # TinyDB types the table as dict[int, ...]

    def put(self, doc_id: str, doc: Mapping[str, Any]) -> None:
        """Create or replace (not merge) one document."""
        self.commit(put={doc_id: doc})

    def ids(self) -> list[str]:
        """Every id, in the order the documents were first put."""
        return list(self._read_table())

    def doc(self, doc_id: str) -> StoredDocument | None:
        """The document stored under `doc_id`, or None: `get(doc_id=...)` for string ids."""
        raw = self._read_table().get(doc_id)
        return None if raw is None else self.document_class(raw, doc_id)

    def docs(self, cond: QueryLike | None = None) -> dict[str, StoredDocument]:
        """Id → document of those matching the TinyDB query `cond` (every one without it), in the
        order they were first put: `search`/`all` with the ids typed as the strings they are."""
        return {doc_id: self.document_class(raw, doc_id) for doc_id, raw in self._read_table().items()
                if cond is None or cond(raw)}

    def raw(self) -> Mapping[str, Mapping[str, Any]]:
        """Id → document as stored, uncopied: only for reading, at once, inside the store."""
        return self._read_table()

    def _get_next_id(self) -> NoReturn:
        raise TypeError("documents in this table need their own id: use put()")

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("documents in this table are replaced whole: use put()")

    def upsert(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("documents in this table are replaced whole: use put()")


class IndexTable(DocTable):
    """Index entries (a few flat fields per document): returned as stored, never copied. `commit`
    may write other tables of the file in the same write (`beside`: where a segment's documents
    lie, `gui.store.slices`)."""

    document_class = StoredDocument

    def __init__(self, storage: Storage, name: str, cache_size: int = 0, persist_empty: bool = False) -> None:
        super().__init__(storage, name, cache_size, persist_empty)
        self._beside: Mapping[str, Mapping[str, Any]] = {}

    def commit(
        self,
        put: Mapping[str, Mapping[str, Any]] | None = None,
        remove: Iterable[str] = (),
        keep: Container[str] | None = None,
        owned: Mapping[str, Mapping[str, Any]] | None = None,
        beside: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """`DocTable.commit`, with the tables in `beside` (name → documents) replaced in the same write."""
        self._beside = beside or {}
        try:
            super().commit(put, remove, keep, owned)
        finally:
            self._beside = {}

    def beside(self, name: str) -> Mapping[str, Any]:
        """The documents of another table of the file, as stored ({} when it has none)."""
        tables = self._storage.read() or {}
        found = tables.get(name)
        return found if isinstance(found, dict) else {}

    def _update_table(self, updater: Callable[[dict[str, Any]], None]) -> None:  # type: ignore[override]
        """TinyDB's `Table._update_table` (ids are strings here: kept as they are), writing the
        tables `beside` in the same write."""
        tables = self._storage.read() or {}
        table = dict(tables.get(self.name, {}))
        updater(table)
        tables[self.name] = table
        tables.update({name: dict(docs) for name, docs in self._beside.items()})
        self._storage.write(tables)
        self.clear_cache()


class Database(TinyDB):
    """A TinyDB whose tables are `DocTable`s, on a `WholeDocumentStorage` file."""

    table_class = DocTable

    def table(self, name: str, **kwargs: Any) -> DocTable:
        """The table `name`, made by `table_class` (TinyDB types it as a plain `Table`)."""
        table = super().table(name, **kwargs)
        if not isinstance(table, DocTable):
            raise TypeError(f"{type(self).__name__}.table_class must make DocTables, not {type(table).__name__}")
        return table


class IndexDatabase(Database):
    """A `Database` of `IndexTable`s: a history segment's index file."""

    table_class = IndexTable

    def table(self, name: str, **kwargs: Any) -> IndexTable:
        table = super().table(name, **kwargs)
        if not isinstance(table, IndexTable):
            raise TypeError(f"{type(self).__name__}.table_class must make IndexTables, not {type(table).__name__}")
        return table


@overload
def open_database(path: Path, index: Literal[False] = False, clean_temp: bool = True) -> Database: ...
@overload
def open_database(path: Path, index: Literal[True], clean_temp: bool = True) -> IndexDatabase: ...
@overload
def open_database(path: Path, index: bool, clean_temp: bool = True) -> Database: ...


def open_database(path: Path, index: bool = False, clean_temp: bool = True) -> Database:
    """The TinyDB at `path` (parsed now; `CorruptDatabaseError` if it is not one). `clean_temp`:
    remove the temporary files a killed writer left beside it first."""
    kind = IndexDatabase if index else Database
    return kind(path, storage=WholeDocumentStorage, clean_temp=clean_temp)

