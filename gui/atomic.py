"""One way SeqDesk writes a file: whole or not at all, on disk when it returns, readable by its owner only.

A file is never rewritten in place (a process killed half-way would leave half of it): every write goes
to a temporary file in the same folder, made readable by this user only (0600) before any byte is in
it, flushed and fsynced, and then `os.replace`s the old file, so a reader sees either the old bytes or
the new ones, never a mix. The folder is fsynced afterwards so the rename itself survives a power cut
(on macOS `fsync` does not force the drive's cache: that would need `F_FULLFSYNC`, which we do not pay
for). A temporary file a killed writer left is found by its name (`remove_stale_temp_files`).

Every file SeqDesk keeps goes through `atomic_write`: the store's databases, the settings files
(`gui.prefs`), the MCP servers' settings and secrets, the endpoint the CLI reads, the browser session's
secret. It sits below every layer (the core, the store, the MCP client may all import it). A file a
person approved writing (`file_write`) is not written here: it goes through the folder as the approval
showed it (`gui.tools._approved_path`), which a path-based writer cannot promise.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

TEMP_SUFFIX = ".tmp"


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` (0600): on return it is on disk; if it raises, the old file is untouched."""
    path = Path(path)
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=folder)  # 0600 at birth
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
