"""`file_read`: read a text file, after the person approves it. Reading changes nothing, so it runs in
parallel; but what it reads can be sent on by a later step (`http_get`), so it asks first, showing
the file it will read.

It reads what the approval showed: the path is resolved once, for the approval, and read without
following links, each folder and the file compared with what the approval saw; one swapped for a link
(or moved, or replaced) while the request waited is refused and nothing is read
(`gui.tools._approved_path`). Every failure names the file, because a person who sees "not found"
needs to know which path the step actually looked at. The size limit keeps a mistaken path (a disk
image, a log of gigabytes) from filling the memory and the run record.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from gui.core.errors import ToolError
from gui.core.sequences import SlotType
from gui.core.tools import ApprovalSummary, ModelTool, ToolContext
from gui.i18n import N_
from gui.tools._approved_path import FolderMissing, ShownPath, caveat, look, open_folder, shown_for
from gui.tools._args import ToolArgs, invalid, parse_args

MAX_READ_BYTES = 10 * 1024 * 1024


class FileReadArgs(ToolArgs):
    """Read a text file."""

    model_config = ConfigDict(title=N_("Read a file"))

    path: str = Field(
        min_length=1,
        title=N_("File"),
        description=N_("The file to read, for example /home/me/notes.txt. "
        "A relative path starts from the folder SeqDesk was started in."),
    )
    encoding: str = Field(
        default="utf-8",
        title=N_("Text encoding"),
        description=N_("How the text is stored in the file. Leave it as utf-8 unless you know otherwise "
        "(for example latin-1 or utf-16)."),
    )

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        try:
            codecs.lookup(value)
        except LookupError:
            raise invalid(f"unknown text encoding '{value}'") from None
        return value


class FileRead(ModelTool):
    name = "file_read"
    description = N_("Reads a text file on this computer and gives back its contents. "
                   "It asks you before each read, unless a rule you made allows it.")
    concurrency_safe = True
    runs_on_hosts = True  # a team's worker carries it
    approval = "tool"
    Args = FileReadArgs

    def approval_summary(self, args: dict[str, Any]) -> ApprovalSummary:
        shown = look(str(args.get("path", "")))
        path = str(shown.path)
        return ApprovalSummary.of(N_("Read the file {path}"), highlight=path, path=path, shown=shown)

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.STRING

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        a = parse_args(self, FileReadArgs, args)
        shown = shown_for(a.path, ctx.approved)
        if (note := caveat()) is not None and ctx.log is not None:
            ctx.log("warning", note)
        return await asyncio.to_thread(read_text, shown, a.encoding)


def read_text(shown: ShownPath, encoding: str) -> str:
    """The text of the file `shown` names, as it was shown; `Changed` when it is not."""
    path = shown.path
    if shown.file.kind == "folder":
        raise ToolError(N_("{path} is a folder, not a file").format(path=path))
    if shown.file.kind == "other":
        raise ToolError(N_("{path} is not a regular file (a device or a pipe cannot be read here)").format(path=path))
    try:
        with open_folder(shown, "read") as folder:
            # O_NONBLOCK: a pipe put in its place cannot hold the read (the comparison then refuses it)
            with os.fdopen(folder.open_file(os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
                data = f.read(MAX_READ_BYTES + 1)
    except ToolError:
        raise
    except (FileNotFoundError, FolderMissing):
        raise ToolError(N_("file not found: {path}").format(path=path)) from None
    except PermissionError:
        raise ToolError(N_("not allowed to read {path}").format(path=path)) from None
    except OSError as exc:
        raise ToolError(N_("could not read {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from None
    if len(data) > MAX_READ_BYTES:
        raise ToolError(N_("{path} is larger than {size} MB, too big to read").format(path=path,
                                                                                 size=MAX_READ_BYTES // (1024 * 1024)))
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        raise ToolError(N_("{path} is not a text file (it cannot be read as {encoding})").format(
            path=path, encoding=encoding)) from None
    if codecs.lookup(encoding).name == "utf-8":
        text = text.removeprefix("\ufeff")  # a byte-order mark is not part of the text
    if "\x00" in text:
        raise ToolError(N_("{path} is not a text file (it contains binary data)").format(path=path))
    return text
