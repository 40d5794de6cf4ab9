"""Reading the intact documents out of a damaged database file.

A file cut short (a disk that filled up, a copy interrupted) or with a few bad bytes in the middle
(an editor, a sync tool) still holds, around the damage, documents that are whole. `salvage` reads
the file as TinyDB lays it out (`{"<table>": {"<id>": {...}, ...}}`) one document at a time; where a
document does not parse, it skips to the next place where one starts (`,"<id>":{`) and goes on.

Skipping can land inside a broken document, on one of its own fields: `accept(doc_id, doc)` tells
the documents of this table from such fragments (the stores check that a document names its own
id), so a fragment is never taken for a document.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

Accept = Callable[[str, Mapping[str, Any]], bool]

_DECODER = json.JSONDecoder()
_NEXT_DOC = re.compile(r'[{,]\s*"(?:[^"\\]|\\.)*"\s*:\s*\{')
_SPACE = re.compile(r"\s*")


def any_object(doc_id: str, doc: Mapping[str, Any]) -> bool:
    return True


def salvage(raw: bytes, table: str, accept: Accept = any_object) -> dict[str, dict[str, Any]]:
    """The documents of `table` that can still be read from `raw`, in file order."""
    text = raw.decode("utf-8", errors="replace")
    whole = _whole(text, table, accept)
    if whole is not None:
        return whole
    found: dict[str, dict[str, Any]] = {}
    start = _table_start(text, table)
    pos = start if start is not None else 0
    while pos < len(text):
        parsed = _document_at(text, pos)
        if parsed is not None:
            doc_id, doc, end = parsed
            if doc_id != table and accept(doc_id, doc):
                found.setdefault(doc_id, doc)
                pos = end
                continue
        match = _NEXT_DOC.search(text, pos + 1)
        if match is None:
            break
        pos = match.start() + 1
    return found


def _whole(text: str, table: str, accept: Accept) -> dict[str, dict[str, Any]] | None:
    """When the file is valid JSON of the wrong shape: the documents of the table that are objects."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    docs = data.get(table) if isinstance(data, dict) else None
    if not isinstance(docs, dict):
        return {}
    return {str(k): v for k, v in docs.items() if isinstance(v, dict) and accept(str(k), v)}


def _table_start(text: str, table: str) -> int | None:
    match = re.match(rf'\s*\{{\s*{re.escape(json.dumps(table))}\s*:\s*\{{', text)
    return match.end() if match else None


def _document_at(text: str, pos: int) -> tuple[str, dict[str, Any], int] | None:
    """`"<id>": {...}` starting at `pos` (after optional space and comma), or None if it does not parse."""
    pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
    if text.startswith(",", pos):
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
    if not text.startswith('"', pos):
        return None
    try:
        doc_id, pos = _DECODER.raw_decode(text, pos)
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos):
            return None
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        doc, end = _DECODER.raw_decode(text, pos)
    except ValueError:
        return None
    if not isinstance(doc_id, str) or not isinstance(doc, dict):
        return None
    return doc_id, doc, end
