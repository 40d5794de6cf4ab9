"""Crash-safe JSON files, and a TinyDB storage built on them.

TinyDB's own `JSONStorage` truncates its file and rewrites it in place: a process killed half-way
leaves half a database. Here every write goes to a temporary file in the same folder, is flushed and
fsynced, and then `os.replace`s the old file, so a reader sees either the old bytes or the new ones,
never a mix. The folder is fsynced afterwards so the rename itself survives a power cut (on macOS
`fsync` does not force the drive's cache: that would need `F_FULLFSYNC`, which we do not pay for).

A file that exists but is not JSON was written by something else: it is never read as "empty" (the
next write would destroy it). `read_json` raises `CorruptDatabaseError`; the opener decides whether
to `quarantine` it (move it aside, keeping its bytes) and start afresh.

Exceptions of the store family::

    StoreError
    ├── CorruptDatabaseError   (here)
    ├── DataFolderInUseError   (lock.py)
    ├── DataFolderError        (datadir.py)
    └── WriterClosedError      (writer.py)
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

log = logging.getLogger(__name__)

_TEMP_SUFFIX = ".tmp"


class StoreError(Exception):
    """Base of every error the store raises on purpose; `code` is stable, the message is for people."""

    code = "store-error"


class CorruptDatabaseError(StoreError):
    """A database file exists but cannot be read as one: it was not written by SeqDesk's store.

    Recover with `quarantine(err.path)`, which moves it aside, then open again.
    """

    code = "corrupt-database"

    def __init__(self, path: Path, reason: str = "it is not valid JSON") -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(
            f"The database file {self.path} cannot be read: {reason}. "
            "It was left untouched; move it aside (quarantine) to start with an empty one."
        )


def dumps(obj: Any) -> str:
    """Compact JSON (these files are rewritten often), ASCII-only so any string encodes."""
    return json.dumps(obj, separators=(",", ":"))


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: on return it is on disk; if it raises, the old file is untouched."""
    path = Path(path)
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TEMP_SUFFIX, dir=folder)
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


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in `path`; None if the file is missing or empty.

    Raises `CorruptDatabaseError` if the file holds anything but a JSON object.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    if not raw.strip():
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CorruptDatabaseError(path, f"it is not valid JSON ({err})") from err
    if not isinstance(data, dict):
        raise CorruptDatabaseError(path, f"it holds a JSON {type(data).__name__}, not an object")
    return data


def remove_stale_temp_files(path: Path) -> int:
    """Delete temporary files a killed writer left beside `path`; returns how many.

    The name of `path` may be a glob pattern (`runs-[0-9]*.json`) to cover a family of files.

    Only safe while no other writer of `path` is running: the instance lock guarantees one process
    per data folder, and the store writer one thread within it.
    """
    path = Path(path)
    removed = 0
    for stale in path.parent.glob(f".{path.name}.*{_TEMP_SUFFIX}"):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
            removed += 1
    return removed


def quarantine(path: Path) -> Path:
    """Move a corrupt file aside to `<name>.corrupt-<timestamp>` (bytes kept) and return where it went."""
    path = Path(path)
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    fsync_dir(path.parent)
    log.warning("moved the unreadable database file %s aside to %s", path, target)
    return target


class AtomicJSONStorage(Storage):
    """A TinyDB storage that writes crash-safely: `TinyDB(path, storage=AtomicJSONStorage)`.

    Nothing is cached: TinyDB mutates the dict `read()` returns before handing it to `write()`, so a
    cached copy could drift from the disk when a write fails. Every `write` is on disk when it returns.
    """

    def __init__(self, path: str | os.PathLike[str], create_dirs: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        if create_dirs:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temp_files(self.path)

    def read(self) -> dict[str, dict[str, Any]] | None:
        data = read_json(self.path)
        if data is None:
            return None
        for table, docs in data.items():
            if not isinstance(docs, dict):
                raise CorruptDatabaseError(self.path, f"its table {table!r} is not a JSON object")
        return data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        atomic_write(self.path, dumps(data).encode("ascii"))
