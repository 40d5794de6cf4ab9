"""One SeqDesk process per data folder.

Two processes writing the same TinyDB files would each overwrite the other's changes. The first
process takes an exclusive, non-blocking OS lock on `<folder>/seqdesk.lock` and holds it for its
whole life; the file also says who holds it (pid, command line, start time, host) so the refusal
can name the other process. The OS drops the lock when its holder dies, however it dies, so a lock
file left behind by a killed process is simply taken over: there is no staleness to guess.

The file is never deleted, only emptied on release: deleting it would let two processes lock two
different files under the same name.

Linux and macOS use `fcntl.flock`. Windows uses `msvcrt.locking` on a byte far past the holder's
record (a locked range cannot be read there); that path is untested.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import socket
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from gui.store.atomic import StoreError

log = logging.getLogger(__name__)

LOCK_NAME = "seqdesk.lock"
_WINDOWS_LOCK_OFFSET = 1 << 20


@dataclass(frozen=True)
class LockHolder:
    """Who holds (or last held) a data folder, as recorded in its lock file."""

    pid: int | None = None
    started_at: str | None = None
    hostname: str | None = None
    argv: tuple[str, ...] = ()

    @classmethod
    def of_this_process(cls) -> LockHolder:
        return cls(
            pid=os.getpid(),
            started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
            hostname=socket.gethostname(),
            argv=tuple(sys.argv),
        )

    @classmethod
    def parse(cls, raw: bytes) -> LockHolder:
        """Whatever can be read from a lock file; fields it lacks stay None."""
        try:
            data: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        pid = data.get("pid")
        argv = data.get("argv")
        return cls(
            pid=pid if isinstance(pid, int) else None,
            started_at=data.get("started_at") if isinstance(data.get("started_at"), str) else None,
            hostname=data.get("hostname") if isinstance(data.get("hostname"), str) else None,
            argv=tuple(str(a) for a in argv) if isinstance(argv, list) else (),
        )

    def to_json(self) -> bytes:
        record = {"pid": self.pid, "started_at": self.started_at, "hostname": self.hostname,
                  "argv": list(self.argv)}
        return json.dumps(record).encode("utf-8")

    def describe(self) -> str:
        """`pid 1234, `seqdesk --browser`, since 10:02`: the parts that are known."""
        parts = [f"pid {self.pid}" if self.pid is not None else "pid unknown"]
        if self.argv:
            parts.append(f"`{shlex.join([Path(self.argv[0]).name, *self.argv[1:]])}`")
        if self.hostname and self.hostname != socket.gethostname():
            parts.append(f"on {self.hostname}")
        if self.started_at:
            parts.append(f"since {_short_time(self.started_at)}")
        return ", ".join(parts)


def _short_time(iso: str) -> str:
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if when.tzinfo is not None:
        when = when.astimezone()
    same_day = when.date() == datetime.now(when.tzinfo).date()
    return when.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M")


class DataFolderInUseError(StoreError):
    """Another SeqDesk process holds this data folder."""

    code = "data-folder-in-use"

    def __init__(self, folder: Path, holder: LockHolder) -> None:
        self.folder = folder
        self.holder = holder
        super().__init__(
            f"The data folder {folder} is in use by another SeqDesk ({holder.describe()}). "
            "Close it first, or set SEQDESK_DATA to another folder."
        )


class InstanceLock:
    """Exclusive ownership of a data folder for the life of this process (or until `release`)."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> InstanceLock:
        """Take the folder, or raise `DataFolderInUseError` naming the process that has it."""
        if self._fd is not None:
            return self
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if not _try_lock(fd):
                holder = LockHolder.parse(_read_all(fd))
                os.close(fd)
                raise DataFolderInUseError(self.folder, holder)
            if _same_file(fd, self.path):
                break
            # Someone replaced the file between our open and our lock: lock the file now there.
            _unlock(fd)
            os.close(fd)
        previous = LockHolder.parse(_read_all(fd))
        if previous.pid is not None:
            log.info("took over the lock on %s left by a process that ended (%s)", self.folder,
                     previous.describe())
        _overwrite(fd, LockHolder.of_this_process().to_json())
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the folder up. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _overwrite(fd, b"")
        finally:
            _unlock(fd)
            os.close(fd)

    def __enter__(self) -> InstanceLock:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _overwrite(fd: int, data: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
    os.ftruncate(fd, len(data))
    with contextlib.suppress(OSError):
        os.fsync(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


if sys.platform == "win32":  # pragma: no cover - untested
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
