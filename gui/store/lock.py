"""One SeqDesk process per data folder, even if someone deletes the lock file.

Two processes writing the same TinyDB files would each overwrite the other's changes. The first
process takes an exclusive, non-blocking OS lock and holds it for its whole life; the OS drops it
when its holder dies, however it dies, so a lock left by a killed process is simply taken over.

A lock on `<folder>/seqdesk.lock` alone is not enough: if that file is deleted (or replaced) while
the app runs, a second process creates a new file under the same name and locks that. So the lock
is also taken on the data folder itself (`flock` on a descriptor of the folder, kept open), which no
one can delete while it holds files; the lock file says who holds the folder, so that a refusal can
name the process. Before each store operation `ensure` checks that the folder is still the one
locked (raising `DataFolderLostError` if it was moved or replaced) and that the lock file is still
the locked one, and re-creates it if it was removed or replaced.

The lock file holds only the holder's pid and start time (never its command line, which can hold a
token), is readable by its owner only (0600), and is emptied, not deleted, on release.

Linux and macOS use `fcntl.flock`. Windows uses `msvcrt.locking` on a byte far past the holder's
record, on the file only (a folder cannot be locked there); that path is untested.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from gui.store.errors import StoreError

log = logging.getLogger(__name__)

LOCK_NAME = "seqdesk.lock"
LOCK_MODE = 0o600
_WINDOWS_LOCK_OFFSET = 1 << 20


@dataclass(frozen=True)
class LockHolder:
    """Who holds (or last held) a data folder, as recorded in its lock file."""

    pid: int | None = None
    started_at: str | None = None

    @classmethod
    def of_this_process(cls) -> LockHolder:
        return cls(pid=os.getpid(), started_at=datetime.now().astimezone().isoformat(timespec="seconds"))

    @classmethod
    def parse(cls, raw: bytes) -> LockHolder:
        """Whatever can be read from a lock file; fields it lacks stay None."""
        try:
            data: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        pid, started = data.get("pid"), data.get("started_at")
        return cls(pid=pid if isinstance(pid, int) else None, started_at=started if isinstance(started, str) else None)

    def to_json(self) -> bytes:
        return json.dumps({"pid": self.pid, "started_at": self.started_at}).encode("utf-8")

    def describe(self) -> str:
        """`pid 1234, since 10:02`: the parts that are known."""
        parts = [f"pid {self.pid}" if self.pid is not None else "pid unknown"]
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


class DataFolderLostError(StoreError):
    """The data folder was moved, deleted or replaced while this process held it."""

    code = "data-folder-lost"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        super().__init__(
            f"The data folder {folder} was moved or replaced while SeqDesk was using it, so nothing more "
            "is saved there. Put it back, or restart SeqDesk."
        )


class InstanceLock:
    """Exclusive ownership of a data folder for the life of this process (or until `release`)."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None
        self._dir_fd: int | None = None
        self._holder = LockHolder()

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> InstanceLock:
        """Take the folder, or raise `DataFolderInUseError` naming the process that has it."""
        if self._fd is not None:
            return self
        free, dir_fd = _lock_folder(self.folder)
        if not free:
            raise DataFolderInUseError(self.folder, self._recorded_holder())
        try:
            fd = self._lock_file(dir_fd)
        except BaseException:
            _close(dir_fd)
            raise
        previous = LockHolder.parse(_read_all(fd))
        if previous.pid is not None:
            log.info("took over the lock on %s left by a process that ended (%s)", self.folder, previous.describe())
        self._holder = LockHolder.of_this_process()
        _overwrite(fd, self._holder.to_json())
        self._fd, self._dir_fd = fd, dir_fd
        return self

    def ensure(self) -> None:
        """Check that we still hold what we locked; re-create a removed or replaced lock file.

        Raises `DataFolderLostError` if the folder itself is no longer the one locked, and
        `DataFolderInUseError` if another process locked a replaced lock file.
        """
        if self._fd is None:
            return
        if self._dir_fd is not None and not _same_file(self._dir_fd, self.folder):
            raise DataFolderLostError(self.folder)
        # The lock file is looked up inside the folder we locked (not by its path), so a folder moved
        # between the check above and this line cannot make us write a lock file into its successor.
        if _same_lock_file(self._fd, self._dir_fd, self.path):
            return
        log.warning("the lock file %s was removed or replaced while SeqDesk was running; re-creating it", self.path)
        fd = self._lock_file(self._dir_fd)
        _overwrite(fd, self._holder.to_json())
        old, self._fd = self._fd, fd
        _close(old)
        if self._dir_fd is not None and not _same_file(self._dir_fd, self.folder):
            raise DataFolderLostError(self.folder)

    def release(self) -> None:
        """Give the folder up. Idempotent."""
        fd, self._fd = self._fd, None
        dir_fd, self._dir_fd = self._dir_fd, None
        if fd is None:
            return
        try:
            if _same_lock_file(fd, dir_fd, self.path):
                _overwrite(fd, b"")
        finally:
            _close(fd)
            _close(dir_fd)

    def _lock_file(self, dir_fd: int | None) -> int:
        """A descriptor of the lock file now in the folder, locked; DataFolderInUseError if someone has it.

        With `dir_fd` (the locked folder) the file is opened inside that folder whatever its path is now."""
        while True:
            if dir_fd is None:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, LOCK_MODE)
            else:
                fd = os.open(LOCK_NAME, os.O_RDWR | os.O_CREAT, LOCK_MODE, dir_fd=dir_fd)
            if not _try_lock(fd):
                holder = LockHolder.parse(_read_all(fd))
                os.close(fd)
                raise DataFolderInUseError(self.folder, holder)
            if _same_lock_file(fd, dir_fd, self.path):
                if hasattr(os, "fchmod"):  # not on Windows
                    with contextlib.suppress(OSError):
                        os.fchmod(fd, LOCK_MODE)  # a file left by an older version may be 0644
                return fd
            # Someone replaced the file between our open and our lock: lock the file now there.
            _close(fd)

    def _recorded_holder(self) -> LockHolder:
        try:
            return LockHolder.parse(self.path.read_bytes())
        except OSError:
            return LockHolder()

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


def _same_lock_file(fd: int, dir_fd: int | None, path: Path) -> bool:
    """Whether `fd` is the lock file in the locked folder `dir_fd` (or, without one, at `path`)."""
    if dir_fd is None:
        return _same_file(fd, path)
    try:
        on_disk = os.stat(path.name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _close(fd: int | None) -> None:
    if fd is None:
        return
    with contextlib.suppress(OSError):
        _unlock(fd)
    os.close(fd)


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

    def _lock_folder(folder: Path) -> tuple[bool, int | None]:
        return True, None  # folders cannot be locked on Windows: the lock file alone guards them

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

    def _lock_folder(folder: Path) -> tuple[bool, int | None]:
        """(True, a locked descriptor of `folder`), or (False, None) if another process holds it."""
        fd = os.open(folder, os.O_RDONLY)
        try:
            if _try_lock(fd):
                return True, fd
        except OSError as err:  # a filesystem that cannot lock folders: the lock file alone guards it
            log.warning("cannot lock the data folder %s itself (%s); relying on its lock file", folder, err)
            os.close(fd)
            return True, None
        os.close(fd)
        return False, None


_held: dict[Path, InstanceLock] = {}


def hold_lock(folder: Path) -> InstanceLock:
    """This process's lock on `folder` (taken on first use); DataFolderInUseError if another has it.

    One lock per process and folder, so the command that starts the app can refuse early and the
    stores opened later reuse it."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    lock = _held.get(key)
    if lock is None or not lock.held:
        lock = InstanceLock(key).acquire()
        _held[key] = lock
    return lock


def release_lock(folder: Path) -> None:
    lock = _held.pop(Path(folder).resolve(), None)
    if lock is not None:
        lock.release()
