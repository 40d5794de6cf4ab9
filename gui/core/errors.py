"""The errors of SeqDesk (the tree is drawn here as it grows)."""

from __future__ import annotations


class OperationError(Exception):
    """An operation failed for a reason the caller should read (not found, app unreachable, …)."""


class ToolError(Exception):
    """A tool call failed; the message is what the person sees."""


class ToolArgumentError(ToolError):
    """The arguments do not fit the tool; `problems` lists (field path, message)."""

    def __init__(self, tool: str, problems: list[tuple[str, str]]) -> None:
        self.tool = tool
        self.problems = problems
        details = "; ".join(f"{path or 'arguments'}: {msg}" for path, msg in problems)
        super().__init__(f"arguments for '{tool}' are not valid: {details}")
