"""`file_write`: write (or append to) a text file, after the person approves it ("write").

Replacing a file goes through a temporary file in the same folder and `os.replace`, so a crash or a
stopped run never leaves a half-written file where a whole one was. The file keeps its permissions.
A link is followed and its target written, as a shell's `>` would, and the approval shows that
target. The write goes where the approval showed: the folders and the file are opened without
following links and compared with what the approval saw, so a file or folder swapped for a link (or
moved, or replaced) while the request waited is refused, and nothing is written
(`gui.tools._approved_path`). Two writes to one file would race, so the tool is not concurrency-safe.
"""

from __future__ import annotations

import asyncio
import os
import stat
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field

from gui.core.errors import ToolError
from gui.core.sequences import SlotType
from gui.core.tools import ModelTool, ShellApproval, ToolContext
from gui.i18n import N_
from gui.tools._approved_path import (
    Folder,
    FolderMissing,
    ShownPath,
    caveat,
    look,
    open_folder,
    shown_for,
)
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
        """What the approval shows, read from the arguments as the runner validated them (as `cmd_run`'s)."""
        shown = look(str(args.get("path", "")))
        verb = "append" if args.get("append") else "write"
        return ShellApproval(
            title="Write a file",
            command=f"{verb} {len(str(args.get('content', '')))} characters to {shown.path}",
            cwd=str(shown.path.parent),
            reason="the sequence step asks to write this file",
            operation="write",
            shown=shown,
        )

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.OBJECT

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        a = parse_args(self, FileWriteArgs, args)
        shown = shown_for(a.path, ctx.approved)
        data = a.content.encode("utf-8")
        if (note := caveat()) is not None and ctx.log is not None:
            ctx.log("warning", note)
        await asyncio.to_thread(write_bytes, shown, data, append=a.append, create_folders=a.create_folders)
        return {"path": str(shown.path), "bytes": len(data)}


def write_bytes(shown: ShownPath, data: bytes, *, append: bool, create_folders: bool) -> None:
    """Write `data` to the file `shown` names, as it was shown; `Changed` when it is not."""
    target = shown.path
    if shown.file.kind == "folder":
        raise ToolError(N_("{path} is a folder, not a file").format(path=target))
    try:
        with open_folder(shown, "write", create_missing=create_folders) as folder:
            if append:
                fd = folder.open_file(os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0), create=True)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            else:
                _replace(folder, data)
    except FolderMissing as missing:
        raise ToolError(N_("the folder {folder} does not exist (turn on 'Create missing folders' to create it)")
                        .format(folder=missing.folder)) from None
    except ToolError:
        raise
    except PermissionError:
        raise ToolError(N_("not allowed to write {path}").format(path=target)) from None
    except OSError as exc:
        raise ToolError(N_("could not write {path}: {reason}").format(path=target, reason=exc.strerror or exc)) \
            from None


def _replace(folder: Folder, data: bytes) -> None:
    """Write `data` to a temporary file beside the target, then rename it over the target: both in the
    folder as it was opened, the target checked against the approval just before the rename."""
    before = folder.check_file()
    if before is not None and stat.S_ISDIR(before.st_mode):
        raise ToolError(N_("{path} is a folder, not a file").format(path=folder.shown.path))
    tmp = f".{folder.name}.{uuid.uuid4().hex[:12]}.tmp"
    # 0o666 filtered by the umask: a new file gets the permissions any other program would give it.
    fd = folder.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if before is not None and hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), stat.S_IMODE(before.st_mode))
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        folder.check_file()
        folder.replace(tmp)
    except BaseException:
        folder.unlink(tmp)
        raise
    folder.sync()
