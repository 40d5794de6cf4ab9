"""TinyDB storages that write crash-safely and parse their file once.

TinyDB's own `JSONStorage` re-reads and re-parses the whole file on every operation and truncates it
to rewrite it in place: slow as the file grows, and a process killed half-way leaves half a
database. `AtomicJSONStorage` parses the file once, when it is opened, keeps that parsed mirror in
memory for every `read()`, and writes through `atomic_write` (temporary file, fsync, rename, fsync
of the folder): every `write` is on disk when it returns, and the mirror only changes once the file
has. `TinyDB(path, storage=AtomicJSONStorage)` works as with any storage.

`WholeDocumentStorage` is for tables whose documents are replaced whole and never edited in place
(`gui.store.database.DocTable` guarantees it): it keeps each document's JSON text beside it and
reuses the text while the document is the same object, so a write renders only what changed and
costs little more than the bytes it writes. It also knows, once a file it rendered is written, where
each document's JSON text lies in it (`spans`): history reads a page's documents from there
without parsing the whole segment (`gui.store.slices`).

A file that is not a TinyDB database (not JSON, a table or a document that is not an object) raises
`CorruptDatabaseError` when the storage is created; the caller decides how to recover.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

from gui.atomic import atomic_write, remove_stale_temp_files
from gui.store.errors import CorruptDatabaseError
from gui.store.files import dumps, key_text, parse_json

Tables = dict[str, dict[str, Any]]


class AtomicJSONStorage(Storage):
    """A TinyDB storage that writes crash-safely: `TinyDB(path, storage=AtomicJSONStorage)`.

    `read()` hands TinyDB a fresh top-level dict over the mirror's tables: TinyDB rebuilds a table it
    changes and assigns it there, so the mirror itself is left alone until `write` succeeds. If a
    write fails, the mirror is read back from the file (which the failed write left untouched), in
    case TinyDB changed a document in place on the way (`Table.update` does).
    """

    def __init__(self, path: str | os.PathLike[str], create_dirs: bool = False, clean_temp: bool = True) -> None:
        """`clean_temp=False`: the caller already removed what killed writers left in the folder
        (history does, once for all its files, instead of listing the folder per file)."""
        super().__init__()
        self.path = Path(path)
        if create_dirs:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if clean_temp:
            remove_stale_temp_files(self.path)
        self.size = 0  # bytes of the file as last read or written
        self._data: Tables | None = self._load()

    def _load(self) -> Tables | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            self.size = 0
            return None
        data = parse_json(self.path, raw)
        self.size = len(raw)
        if data is None:
            return None
        for table, docs in data.items():
            if not isinstance(docs, dict):
                raise CorruptDatabaseError(self.path, f"its table {table!r} is not a JSON object")
            for doc_id, doc in docs.items():
                if not isinstance(doc, dict):
                    raise CorruptDatabaseError(self.path, f"its document {doc_id!r} in {table!r} is not a JSON object")
        return data

    def read(self) -> Tables | None:
        return None if self._data is None else dict(self._data)

    def write(self, data: Tables) -> None:
        try:
            body = self._render(data).encode("utf-8")
            atomic_write(self.path, body)
        except BaseException:
            with contextlib.suppress(Exception):
                self._data = self._load()
            raise
        self._commit_render()
        self._data = data
        self.size = len(body)

    def _render(self, data: Tables) -> str:
        return dumps(data)

    def _commit_render(self) -> None:
        """Called once a rendered file is on disk (see `WholeDocumentStorage`)."""


class WholeDocumentStorage(AtomicJSONStorage):
    """`AtomicJSONStorage` that reuses the JSON text of documents that did not change.

    Only for tables that never change a stored document in place: a document is known unchanged by
    being the very same object as at the last write.
    """

    def __init__(self, path: str | os.PathLike[str], create_dirs: bool = False, clean_temp: bool = True) -> None:
        self._texts: dict[str, dict[str, tuple[Any, str]]] = {}
        self._rendered: dict[str, dict[str, tuple[Any, str]]] = {}
        # table -> id -> (first byte, byte after the last) of the document's JSON in the file as last
        # written by this storage; empty until it writes (a file only read has none known)
        self.spans: dict[str, dict[str, tuple[int, int]]] = {}
        self._spans_rendered: dict[str, dict[str, tuple[int, int]]] = {}
        super().__init__(path, create_dirs, clean_temp)

    def _render(self, data: Tables) -> str:
        rendered: dict[str, dict[str, tuple[Any, str]]] = {}
        spans: dict[str, dict[str, tuple[int, int]]] = {}
        tables = []
        at = 1  # bytes written before the next table: "{", then each table and a comma
        for table, docs in data.items():
            known = self._texts.get(table, {})
            entries: dict[str, tuple[Any, str]] = {}
            for doc_id, doc in docs.items():
                cached = known.get(doc_id)
                entries[doc_id] = (cached if cached is not None and cached[0] is doc
                                   else (doc, f"{key_text(doc_id)}:{dumps(doc)}"))
            rendered[table] = entries
            head = f"{dumps(table)}:{{"
            spans[table] = _spans(entries, at + len(head.encode("utf-8")))
            text = f"{head}{','.join(text for _, text in entries.values())}}}"
            tables.append(text)
            at += _size(text) + 1
        self._rendered, self._spans_rendered = rendered, spans
        return "{" + ",".join(tables) + "}"

    def _commit_render(self) -> None:
        self._texts, self._rendered = self._rendered, {}
        self.spans, self._spans_rendered = self._spans_rendered, {}

    def entry(self, table: str, doc_id: str) -> str | None:
        """The document's entry `"<id>":{...}` in `table` as last written (None: not written by
        this storage, or not there)."""
        known = self._texts.get(table, {}).get(doc_id)
        return None if known is None else known[1]

    def know(self, table: str, texts: Mapping[str, tuple[Any, str]]) -> None:
        """The JSON text of documents about to be written to `table`: id → (the very document, its
        entry `"<id>":{...}`), so the next write reuses it instead of rendering them."""
        self._texts.setdefault(table, {}).update(texts)


def _size(text: str) -> int:
    """Bytes of `text` in UTF-8 (the files' text is nearly always ASCII: then its length)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _spans(entries: Mapping[str, tuple[Any, str]], at: int) -> dict[str, tuple[int, int]]:
    """Where each entry's document lies, the entries `"<id>":{...}` written from byte `at`, a comma
    between two. An entry whose key is not written as `key_text` writes it has none (not expected)."""
    spans = {}
    for doc_id, (_, text) in entries.items():
        if text.isascii():  # (nearly always: its bytes are its characters)
            size = len(text)
            plain = f'"{doc_id}":'  # the key as `key_text` writes an id that needs no escaping
            if text.startswith(plain):
                spans[doc_id] = (at + len(plain), at + size)
                at += size + 1
                continue
        else:
            size = len(text.encode("utf-8"))
        key = f"{key_text(doc_id)}:"  # (the same text as `dumps`, without rendering a plain id)
        if text.startswith(key):
            spans[doc_id] = (at + _size(key), at + size)
        at += size + 1
    return spans
