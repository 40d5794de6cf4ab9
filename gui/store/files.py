"""The store's JSON files: compact JSON, read strictly, and a damaged file kept aside.

Writes go through the one atomic writer (`gui.atomic.atomic_write`). A file that exists but is not
JSON was written by something else: it is never read as "empty" (the next write would destroy it).
`read_json` raises `CorruptDatabaseError`; `keep_aside` and `quarantine` keep its bytes under a name a
person can find (`<name>.corrupt-<timestamp>`).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import orjson

from gui.store.errors import CorruptDatabaseError

log = logging.getLogger(__name__)


_COMPACT = json.JSONEncoder(separators=(",", ":"))  # `json.dumps` with any argument makes a new one per call


def dumps(obj: Any) -> str:
    """Compact JSON (these files are rewritten often), ASCII-only so any string encodes. Rendered by
    orjson (three times faster, parse included) when its text is ASCII and reads back equal to `obj`,
    so what is written is the same JSON value either way; by the standard encoder otherwise (a
    non-finite float, which orjson writes as null; text beyond ASCII, which it writes unescaped; a
    lone surrogate, an integer past 64 bits or a key that is not text, which it refuses)."""
    try:
        raw = orjson.dumps(obj)
        if raw.isascii() and orjson.loads(raw) == obj:
            return raw.decode("ascii")
    except (TypeError, orjson.JSONEncodeError):
        pass
    return _COMPACT.encode(obj)


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.:-]*\Z")  # a key that is its own JSON text between quotes


def key_text(key: str) -> str:
    """`dumps` of a key (a document's id): between quotes as it is when nothing in it needs escaping."""
    return f'"{key}"' if _PLAIN_KEY.match(key) else dumps(key)


def json_text(obj: Any) -> bytes:
    """`obj` as JSON for a reader rather than a file: orjson's, ten times faster than `dumps` (it
    writes a non-finite float as null, as every JSON answer of the app does); `dumps` for what
    orjson refuses (a lone surrogate, an integer past 64 bits)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return dumps(obj).encode("ascii")


def parse_json(path: Path, raw: bytes) -> dict[str, Any] | None:
    """The JSON object in `raw` (read from `path`); None if empty; `CorruptDatabaseError` otherwise."""
    if not raw.strip():
        return None
    try:
        data = orjson.loads(raw)  # several times faster; refuses what JSON allows beyond it (NaN, a lone
    except orjson.JSONDecodeError:  # surrogate's escape, huge numbers): the standard parser decides those
        data = None
    try:
        if data is None:
            data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CorruptDatabaseError(path, f"it is not valid JSON ({err})") from err
    if not isinstance(data, dict):
        raise CorruptDatabaseError(path, f"it holds a JSON {type(data).__name__}, not an object")
    return data


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in `path`; None if the file is missing or empty.

    Raises `CorruptDatabaseError` if the file holds anything but a JSON object.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return parse_json(path, raw)
