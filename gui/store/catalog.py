"""The history catalog: the views of the closed segments kept in one compact file beside them.

Opening history would otherwise parse every segment's index. The catalog holds each closed
segment's view (`SegmentView.encode`) with the stamp of the index file it was read from (inode,
size, time of the write: index files are replaced, never changed in place). At open, a segment
whose index still has that stamp takes its view from the catalog; any other is read from its
index, and the catalog written again. It is only a cache: if it is missing, unreadable or stale,
the indexes are read, and nothing is lost.

    history/<name>.catalog.json   {"format": 1, "segments": {"<seg>": {"stamp": [...], "view": {...}}}}
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from gui.atomic import atomic_write
from gui.store.errors import CorruptDatabaseError
from gui.store.files import read_json
from gui.store.segment_view import SegmentView

log = logging.getLogger(__name__)
FORMAT = 1


def stamp(path: Path) -> list[int] | None:
    """What identifies the file at `path` as written; None if there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def read_catalog(path: Path, name: str) -> dict[int, tuple[Any, Any]]:
    """Segment → (stamp, saved view) as kept; {} when there is no catalog or it cannot be read."""
    try:
        data = read_json(path) or {}
        if data.get("format") != FORMAT:
            return {}
        return {int(seg): (item["stamp"], item["view"]) for seg, item in data["segments"].items()}
    except (CorruptDatabaseError, KeyError, TypeError, ValueError, AttributeError) as exc:
        log.warning("%s: the catalog of history is unreadable (%s); reading the indexes instead", name, exc)
        return {}


def write_catalog(path: Path, name: str, views: Mapping[int, tuple[list[int] | None, SegmentView]]) -> None:
    """Keep `views` (segment → (stamp of its index, view)); one that cannot be kept is left out."""
    segments = {}
    for seg, (index_stamp, view) in views.items():
        data = view.encode() if index_stamp is not None else None
        if data is not None:
            segments[str(seg)] = {"stamp": index_stamp, "view": data}
    try:
        atomic_write(path, orjson.dumps({"format": FORMAT, "segments": segments}))
    except (OSError, TypeError) as exc:  # only a cache: the next open reads the indexes
        log.warning("%s: could not keep the catalog of history: %s", name, exc)
