"""Whether a data folder's store may hold a document, read from its files without opening the store.

Beside the store (`gui.store`), not in it: a command that goes on through the app does not load the
store (its package loads every table's code, a tenth of a second or more) to ask this. Nothing is
locked, repaired or written, so it may be asked while another process holds the folder (an
app serving it, starting or ending): a door asks it before it starts an app only to hear that an id it
was given is unknown (`seqdesk run --resume`, `gui.doors.unknown_run_folder`).

A document's id is a key in every file that holds it (`gui.store.hotcold`): the hot documents' snapshot
and journal, and a history segment's index (or, for a segment without one, the segment itself, from
which the store rebuilds it). The files are searched for the id as JSON writes it, without parsing
them: a match elsewhere in a document (another run naming it) only makes the answer "maybe". They are
read in the order that keeps a store being written meanwhile from hiding a document: the journal
before the snapshot (a compaction writes the snapshot, then empties the journal), the hot documents
before history (a move to history writes history first, and removes the hot copy last).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

PLAIN_ID = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")  # written as itself in JSON, by any encoder
HISTORY = "history"
JOURNAL_SUFFIX = ".journal"  # `gui.store.journal.JOURNAL_SUFFIX`


def may_hold(folder: Path, name: str, doc_id: str) -> bool | None:
    """True when the store `name` on `folder` may hold `doc_id`, False when its files show that it
    does not (a folder that is not there holds nothing); None when they cannot tell cheaply: an id
    JSON may write otherwise than as itself, a file that cannot be read, a history index that does
    not parse (the store, opened, rebuilds it from its segment)."""
    if not PLAIN_ID.match(doc_id):
        return None
    needle = b'"' + doc_id.encode("ascii") + b'"'
    try:
        if not folder.exists():
            return False
        if not folder.is_dir():
            return None
        for hot in (folder / f"{name}{JOURNAL_SUFFIX}", folder / f"{name}.json"):
            if needle in _bytes_of(hot):
                return True
        return _in_history(folder / HISTORY, name, needle)
    except OSError:
        return None


def _in_history(history: Path, name: str, needle: bytes) -> bool | None:
    pattern = re.compile(rf"^{re.escape(name)}-(\d+)(\.index)?\.json$")
    found: dict[int, set[str]] = {}
    try:
        entries = list(os.scandir(history))
    except FileNotFoundError:
        return False
    for entry in entries:
        match = pattern.match(entry.name)
        if match:
            found.setdefault(int(match[1]), set()).add("index" if match[2] else "data")
    for seg, files in sorted(found.items()):
        if "data" not in files:  # its documents are lost: the store lists none of them
            continue
        segment = history / f"{name}-{seg:04d}.json"
        index = _bytes_of(history / f"{name}-{seg:04d}.index.json") if "index" in files else None
        if index is not None and needle in index:
            return True
        if index is not None and _whole_index(index):
            continue
        if needle in _bytes_of(segment):  # no index, or a damaged one: the store rebuilds it from this
            return True
    return False


def _whole_index(raw: bytes) -> bool:
    """Whether an index file reads as one (its documents' ids, or those of the first format)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(data, dict) and (isinstance(data.get("index"), dict) or isinstance(data.get("ids"), list))


def _bytes_of(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
