"""What every built-in tool's arguments share, kept in one place so the tools agree.

Argument models forbid unknown keys (a misspelt argument is an error, not silently ignored, the
same rule as the sequence format), and a tool reads its arguments through `parse_args` so its `call`
works with a typed model and still fails cleanly on raw input: one validation, not a check by the
registry and then another.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

from gui.core.tools import ModelTool

ArgsT = TypeVar("ArgsT", bound=BaseModel)


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def parse_args(tool: ModelTool, model: type[ArgsT], args: dict[str, Any]) -> ArgsT:
    """The arguments as `model`, validated once: the runner's check already read them into it
    (`CheckedArgs`), else they are validated now; ToolArgumentError (with field paths, as the
    registry's check gives them) when they do not fit."""
    return tool.read_args(model, args)


def invalid(message: str) -> PydanticCustomError:
    """A validation error whose message is shown as written (no "Value error, " in front of it)."""
    return PydanticCustomError("invalid_argument", message)


def excerpt(text: str, limit: int = 2000, *, keep_end: bool = False) -> str:
    """At most `limit` characters of `text`, for an error message a person reads.

    `keep_end` keeps the last characters: a command's error output says what went wrong at its end.
    """
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"…{text[-limit:]}" if keep_end else f"{text[:limit]}…"
