"""The file an approval showed, and opening exactly that file once it is approved.

`file_read` and `file_write` resolve their path once, when they word the approval: `look` notes the
resolved path and what was there, down to the file: the identity (device and inode) and kind of
every folder on it and of the file, or that it did not exist yet. The approval carries that note
(`ShellApproval.shown`, `ApprovalSummary.shown`) back to the tool's call (`ToolContext.approved`).

After the approval, `open_folder` walks the noted path from the root one name at a time, each opened
relative to the folder before it (`dir_fd`) and never following a link (`O_NOFOLLOW`), and compares
what it finds with the note; `Folder` then opens, checks and replaces the file inside that folder the
same way. Anything that became a link, was moved or replaced, was removed, or appeared where nothing
was, between the approval and the act, is refused with a sentence naming it (`Changed`): the tool
reads or writes nothing. A link in the path the person typed is fine: it was followed when the
approval was worded, and the approval shows where it led.

Where the system cannot open a file relative to a folder without following links (Windows), the same
comparison is made by path just before acting (`DIR_FD` is False): the moment between that check and
the act is short but not closed, and the tools say so in their log.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gui.core.errors import NotFound, ToolError
from gui.i18n import N_

Kind = Literal["folder", "file", "link", "other", "missing", "unknown"]
Verb = Literal["read", "write"]
How = Literal["link", "replaced", "removed", "created"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_PATH opens a folder to walk through it without needing to read it (a home folder may be 0711).
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
DIR_FD = (bool(_NOFOLLOW) and hasattr(os, "O_DIRECTORY")
          and {os.open, os.stat, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd
          and os.stat in os.supports_follow_symlinks)
NOT_CLOSED = N_("this system cannot open a file without following links: the path was checked just before, "
                "by name")

_CHANGED: dict[Verb, dict[How, str]] = {
    "write": {
        "link": N_("nothing was written: {path} became a link after the write was approved"),
        "replaced": N_("nothing was written: {path} was moved or replaced after the write was approved"),
        "removed": N_("nothing was written: {path} was removed after the write was approved"),
        "created": N_("nothing was written: {path} did not exist when the write was approved, and now it does"),
    },
    "read": {
        "link": N_("nothing was read: {path} became a link after the read was approved"),
        "replaced": N_("nothing was read: {path} was moved or replaced after the read was approved"),
        "removed": N_("nothing was read: {path} was removed after the read was approved"),
        "created": N_("nothing was read: {path} did not exist when the read was approved, and now it does"),
    },
}


def caveat() -> str | None:
    """What the tools log when this system cannot close the gap (None where it can)."""
    return None if DIR_FD else NOT_CLOSED


class Changed(ToolError):
    """A file or folder on the approved path is not what the approval showed."""

    def __init__(self, verb: Verb, how: How, path: Path) -> None:
        self.how, self.path = how, path
        super().__init__(_CHANGED[verb][how].format(path=path))


class FolderMissing(NotFound):
    """A folder on the path did not exist when the approval was worded, and still does not."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        super().__init__(str(folder))


@dataclass(frozen=True)
class Seen:
    """One name on the path, as it was when the approval was worded."""

    name: str
    kind: Kind
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of what was there


@dataclass(frozen=True)
class ShownPath:
    """The resolved path an approval showed, and what was on it: `steps[0]` is the root (or drive),
    `steps[-1]` the file."""

    given: str  # the path as the arguments gave it
    path: Path
    steps: tuple[Seen, ...]

    @property
    def file(self) -> Seen:
        return self.steps[-1]


def kind_of(st: os.stat_result) -> Kind:
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "other"


def _seen(name: str, st: os.stat_result) -> Seen:
    return Seen(name, kind_of(st), (st.st_dev, st.st_ino))


def resolve(given: str) -> Path:
    """The path with `~` expanded, made absolute and its links followed (as far as they exist)."""
    path = Path(given).expanduser()
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a link that leads in a circle: the walk will refuse it
        return Path(os.path.abspath(path))


def look(given: str) -> ShownPath:
    """Resolve `given` and note what is on the path now (what the approval will show)."""
    path = resolve(given)
    return ShownPath(given, path, tuple(_look_steps(path)))


def shown_for(given: str, approved: object) -> ShownPath:
    """What the approval showed for `given` (`ToolContext.approved`), or, when nothing was asked for
    these arguments (no approval, an edited path), what is there now."""
    if isinstance(approved, ShownPath) and approved.given == given:
        return approved
    return look(given)


def _look_steps(path: Path) -> list[Seen]:
    steps: list[Seen] = []
    here = Path(path.anchor)
    kind: Kind | None = None  # once a name is missing or unreadable, so is every name below it
    for index, name in enumerate(path.parts):
        here = here / name if index else here
        if kind is not None:
            steps.append(Seen(name, kind))
            continue
        try:
            steps.append(_seen(name, os.lstat(here)))
        except (FileNotFoundError, NotADirectoryError):
            kind = "missing"
            steps.append(Seen(name, kind))
        except OSError:  # not allowed to look: the walk will say so
            kind = "unknown"
            steps.append(Seen(name, kind))
    return steps


def compare(seen: Seen, now: os.stat_result | None, where: Path, verb: Verb) -> None:
    """Refuse (`Changed`) when what is at `where` now (`now`, not following links) is not `seen`."""
    if seen.kind == "unknown":
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(where))
    if seen.kind == "missing":
        if now is not None:
            raise Changed(verb, "created", where)
        return
    if now is None:
        raise Changed(verb, "removed", where)
    if stat.S_ISLNK(now.st_mode) and seen.kind != "link":
        raise Changed(verb, "link", where)
    if (now.st_dev, now.st_ino) != seen.identity or kind_of(now) != seen.kind:
        raise Changed(verb, "replaced", where)
    if seen.kind == "link":  # a link when the approval was worded (it leads in a circle): not followed now
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(where))


class Folder:
    """The file's folder, opened as the approval showed it: `fd` (None where `DIR_FD` is False)."""

    def __init__(self, shown: ShownPath, verb: Verb, fd: int | None) -> None:
        self.shown, self.verb, self.fd = shown, verb, fd
        self.path = shown.path.parent
        self.name = shown.path.name

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            if self.fd is None:
                return os.lstat(self.path / name)
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def check_file(self) -> os.stat_result | None:
        """What is at the file's name now (None: nothing), refused unless it is what was shown."""
        now = self.lstat(self.name)
        compare(self.shown.file, now, self.shown.path, self.verb)
        return now

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        """Open `name` in this folder, never following a link."""
        flags |= _NOFOLLOW | _CLOEXEC | getattr(os, "O_BINARY", 0)
        if self.fd is None:
            return os.open(self.path / name, flags, mode)
        return os.open(name, flags, mode, dir_fd=self.fd)

    def open_file(self, flags: int, *, create: bool = False, mode: int = 0o666) -> int:
        """Open the file itself, refused unless the opened file is the one shown. A file that did not
        exist is created when `create` (never over something that appeared meanwhile), else not found."""
        if self.shown.file.kind == "missing":
            if not create:
                self.check_file()  # something appeared: say so
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self.shown.path))
            try:
                return self.open(self.name, flags | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                raise Changed(self.verb, "created", self.shown.path) from None
        try:
            fd = self.open(self.name, flags)
        except PermissionError:
            raise
        except OSError:
            self.check_file()  # a link now (O_NOFOLLOW), removed, replaced: say which
            raise
        try:
            compare(self.shown.file, os.fstat(fd), self.shown.path, self.verb)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def replace(self, temporary: str) -> None:
        """Rename `temporary` (in this folder) over the file."""
        if self.fd is None:
            os.replace(self.path / temporary, self.shown.path)
        else:
            os.replace(temporary, self.name, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        try:
            if self.fd is None:
                os.unlink(self.path / name)
            else:
                os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            pass

    def sync(self) -> None:
        """Make a rename in this folder durable; not every platform can open a folder, which is fine."""
        try:
            fd = os.open(".", os.O_RDONLY, dir_fd=self.fd) if self.fd is not None else os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def open_folder(shown: ShownPath, verb: Verb, *, create_missing: bool = False) -> Folder:
    """The file's folder, reached as the approval showed it; folders that did not exist then are made
    when `create_missing` (else `FolderMissing`). Raises `Changed` when something on the way differs."""
    if not DIR_FD:
        return _by_path(shown, verb, create_missing)
    steps = shown.steps
    here = Path(shown.path.anchor)
    fd = os.open(shown.path.anchor, _DIR_FLAGS)
    try:
        compare(steps[0], os.fstat(fd), here, verb)
        for seen in steps[1:-1]:
            here = here / seen.name
            if seen.kind == "missing":
                if not create_missing:
                    if _lstat_at(fd, seen.name) is not None:
                        raise Changed(verb, "created", here)
                    raise FolderMissing(shown.path.parent)
                try:
                    os.mkdir(seen.name, 0o777, dir_fd=fd)
                except FileExistsError:
                    raise Changed(verb, "created", here) from None
            inner = _open_dir(fd, seen, here, verb)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return Folder(shown, verb, fd)


def _lstat_at(fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _open_dir(fd: int, seen: Seen, here: Path, verb: Verb) -> int:
    """Open the folder `seen.name` inside `fd`, not following a link, and compare it with `seen` (a
    folder noted missing was made just now: it must still be a folder)."""
    try:
        inner = os.open(seen.name, _DIR_FLAGS, dir_fd=fd)
    except PermissionError:
        raise
    except OSError:
        if seen.kind == "missing":
            raise Changed(verb, "replaced", here) from None
        compare(seen, _lstat_at(fd, seen.name), here, verb)  # a link now, removed, replaced: say which
        raise
    try:
        now = os.fstat(inner)
        if seen.kind != "missing":
            compare(seen, now, here, verb)
        elif not stat.S_ISDIR(now.st_mode):
            raise Changed(verb, "replaced", here)
    except BaseException:
        os.close(inner)
        raise
    return inner


def _by_path(shown: ShownPath, verb: Verb, create_missing: bool) -> Folder:
    """Without `dir_fd`: compare every folder by path now, make the missing ones, then act by path."""
    here = Path(shown.path.anchor)
    for index, seen in enumerate(shown.steps[:-1]):
        here = here / seen.name if index else here
        try:
            now: os.stat_result | None = os.lstat(here)
        except FileNotFoundError:
            now = None
        if seen.kind == "missing" and now is None:
            if not create_missing:
                raise FolderMissing(shown.path.parent)
            os.mkdir(here)
            continue
        compare(seen, now, here, verb)
    return Folder(shown, verb, None)
