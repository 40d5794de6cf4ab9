"""`file_write`: write (or append to) a text file, after the person approves it ("write").

Replacing a file goes through a temporary file in the same folder and `os.replace`, so a crash or a
stopped run never leaves a half-written file where a whole one was. The file keeps its permissions.
A link is followed and its target written, as a shell's `>` would, and the approval shows that
target. Two writes to one file would race, so the tool is not concurrency-safe.
"""

from __future__ import annotations

import asyncio
import os
import stat
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from gui.core.model import SlotType
from gui.core.registry import ModelTool, ShellApproval, ToolContext, ToolError
from gui.i18n import N_
from gui.tools._args import ToolArgs, parse_args


class FileWriteArgs(ToolArgs):
    """Write text into a file."""

    model_config = ConfigDict(title=N_("Write a file"))

    path: str = Field(
        min_length=1,
        title=N_("File"),
        description=N_("The file to write, for example /home/me/report.txt. "
        "A relative path starts from the folder SeqDesk was started in."),
    )
    content: str = Field(
        title=N_("Text"),
        description=N_("The text to put in the file (saved as UTF-8)."),
    )
    append: bool = Field(
        default=False,
        title=N_("Add to the end"),
        description=N_("On: add the text at the end of the file. Off: replace everything in the file."),
    )
    create_folders: bool = Field(
        default=False,
        title=N_("Create missing folders"),
        description=N_("On: create the file's folder (and the folders above it) if they do not exist yet."),
    )


def _target(path: str) -> Path:
    return Path(path).expanduser().resolve()


class FileWrite(ModelTool):
    name = "file_write"
    description = N_(
        "Writes text into a file on this computer, replacing it or adding to its end. "
        "It asks you before each write, unless a rule you made allows it."
    )
    concurrency_safe = False  # two writes to one file would race
    approval = "write"
    Args = FileWriteArgs

    def shell_approval(self, args: dict[str, Any]) -> ShellApproval:
        a = parse_args(self, FileWriteArgs, args)
        target = _target(a.path)
        verb = "append" if a.append else "write"
        return ShellApproval(
            title="Write a file",
            command=f"{verb} {len(a.content)} characters to {target}",
            cwd=str(target.parent),
            reason="the sequence step asks to write this file",
            operation="write",
        )

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.OBJECT

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        a = parse_args(self, FileWriteArgs, args)
        target = _target(a.path)
        data = a.content.encode("utf-8")
        await asyncio.to_thread(write_bytes, target, data, append=a.append, create_folders=a.create_folders)
        return {"path": str(target), "bytes": len(data)}


def write_bytes(target: Path, data: bytes, *, append: bool, create_folders: bool) -> None:
    if target.is_dir():
        raise ToolError(N_("{path} is a folder, not a file").format(path=target))
    folder = target.parent
    try:
        if not folder.is_dir():
            if not create_folders:
                raise ToolError(N_("the folder {folder} does not exist (turn on 'Create missing folders' to create it)")
                                .format(folder=folder))
            folder.mkdir(parents=True, exist_ok=True)
        if append:
            with target.open("ab") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        else:
            _replace(target, data)
    except ToolError:
        raise
    except PermissionError:
        raise ToolError(N_("not allowed to write {path}").format(path=target)) from None
    except OSError as exc:
        raise ToolError(N_("could not write {path}: {reason}").format(path=target, reason=exc.strerror or exc)) \
            from None


def _replace(target: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `target`, then rename it over `target`."""
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")
    # 0o666 filtered by the umask: a new file gets the permissions any other program would give it.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        except FileNotFoundError:
            pass  # a new file
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable; not every platform can open a folder, which is fine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
