"""Crash-safe file primitives: replace a file atomically, read one, keep a damaged one aside.

A file is never rewritten in place (a process killed half-way would leave half a database): every
write goes to a temporary file in the same folder, is flushed and fsynced, and then `os.replace`s
the old file, so a reader sees either the old bytes or the new ones, never a mix. The folder is
fsynced afterwards so the rename itself survives a power cut (on macOS `fsync` does not force the
drive's cache: that would need `F_FULLFSYNC`, which we do not pay for).

A file that exists but is not JSON was written by something else: it is never read as "empty" (the
next write would destroy it). `read_json` raises `CorruptDatabaseError`; `keep_aside` and
`quarantine` keep its bytes under a name a person can find (`<name>.corrupt-<timestamp>`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from gui.store.errors import CorruptDatabaseError, StoreError

log = logging.getLogger(__name__)

TEMP_SUFFIX = ".tmp"

__all__ = ["CorruptDatabaseError", "StoreError", "atomic_write", "dumps", "fsync_dir", "keep_aside",
           "quarantine", "read_json", "remove_stale_temp_files"]


def dumps(obj: Any) -> str:
    """Compact JSON (these files are rewritten often), ASCII-only so any string encodes."""
    return json.dumps(obj, separators=(",", ":"))


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: on return it is on disk; if it raises, the old file is untouched."""
    path = Path(path)
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable. Not possible on Windows, and some filesystems refuse it."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as err:
        log.warning("cannot open folder %s to fsync it: %s", folder, err)
        return
    try:
        os.fsync(fd)
    except OSError as err:
        # The file itself is already replaced and fsynced: report, do not pretend the write failed.
        log.warning("cannot fsync folder %s: %s", folder, err)
    finally:
        os.close(fd)


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


def remove_stale_temp_files(path: Path) -> int:
    """Delete temporary files a killed writer left beside `path`; returns how many.

    The name of `path` may be a glob pattern (`runs-[0-9]*.json`) to cover a family of files.

    Only safe while no other writer of `path` is running: the instance lock guarantees one process
    per data folder, and the store writer one thread within it.
    """
    path = Path(path)
    removed = 0
    for stale in path.parent.glob(f".{path.name}.*{TEMP_SUFFIX}"):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
            removed += 1
    return removed


def _aside_name(path: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    return target


def quarantine(path: Path) -> Path:
    """Move a corrupt file aside to `<name>.corrupt-<timestamp>` (bytes kept) and return where it went."""
    path = Path(path)
    target = _aside_name(path)
    os.replace(path, target)
    fsync_dir(path.parent)
    log.warning("moved the unreadable database file %s aside to %s", path, target)
    return target


def keep_aside(path: Path) -> Path:
    """Keep the bytes of `path` under `<name>.corrupt-<timestamp>` too, leaving `path` in place.

    A hard link when the filesystem has them (instant, and atomic), a copy otherwise; so that the
    caller can then `atomic_write` a repaired file over `path` without a moment where neither exists.
    """
    path = Path(path)
    target = _aside_name(path)
    try:
        os.link(path, target)
    except OSError:
        shutil.copyfile(path, target)
        with open(target, "rb") as handle:
            os.fsync(handle.fileno())
    fsync_dir(path.parent)
    return target
