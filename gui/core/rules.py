"""Approval rules: what a person allowed beyond one request, exactly as wide as they chose.

An approval is answered for one request (`once`, the default) or with a scope that makes a rule:

- `run`: this tool, for the rest of this run (requests of it already waiting included);
- `sequence`: this tool, whenever this sequence runs;
- `prefix`: `cmd_run` commands that start with the given words (`git status`). A command that
  holds a shell operator (`;`, `&`, `|`, `<`, `>`, `$`, a backquote, parentheses, a newline) never
  matches, so `git status; rm -rf x` is asked about even with a `git status` rule;
- `tool`: this tool everywhere (what "always allow" meant before scopes).

`tool` rules live in the approval modes (`always-allow`); the others are `ApprovalRule`s kept beside
them. Each has an id, and every auto-approval records the rule that allowed it.
"""

from __future__ import annotations

import shlex
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gui.core.interactions import InteractionRequest, ShellApprovalRequest, ToolApprovalRequest, tool_name_of

Scope = Literal["once", "run", "sequence", "prefix", "tool"]
RuleScope = Literal["run", "sequence", "prefix", "tool"]
SCOPES: tuple[Scope, ...] = ("once", "run", "sequence", "prefix", "tool")
PREFIX_TOOL = "cmd_run"
_OPERATORS = frozenset(";&|<>$`()\n\r")


class RuleError(ValueError):
    """A rule that cannot be made (a prefix on another tool, a compound prefix, …)."""


class ApprovalRule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    tool: str
    scope: RuleScope
    run_id: str | None = None  # scope run
    sequence: str | None = None  # scope sequence
    prefix: str | None = None  # scope prefix
    created_at: int = 0  # ms
    from_interaction: str | None = None  # the answer that made it

    @property
    def text(self) -> str:
        """The rule in words, as the inbox and Settings show it."""
        if self.scope == "run":
            return f"{self.tool} for the rest of run {self.run_id}"
        if self.scope == "sequence":
            return f"{self.tool} whenever the sequence '{self.sequence}' runs"
        if self.scope == "prefix":
            return f"commands that start with `{self.prefix}`"
        return f"every {self.tool} request, in every sequence"

    def matches(self, request: InteractionRequest) -> bool:
        if not isinstance(request, ShellApprovalRequest | ToolApprovalRequest):
            return False
        if tool_name_of(request) != self.tool:
            return False
        if self.scope == "run":
            return request.turn_id == self.run_id
        if self.scope == "sequence":
            return bool(self.sequence) and request.sequence_name == self.sequence
        if self.scope == "prefix":
            return isinstance(request, ShellApprovalRequest) and command_starts_with(request.command, self.prefix or "")
        return True


def tool_rule_id(tool: str) -> str:
    return f"tool:{tool}"


def command_starts_with(command: str, prefix: str) -> bool:
    """Whether `command` is the words of `prefix` followed by more words, with no shell operator."""
    if not prefix.strip() or any(c in _OPERATORS for c in command):
        return False
    try:
        words, start = shlex.split(command), shlex.split(prefix)
    except ValueError:
        return False
    return bool(start) and words[: len(start)] == start


def check_prefix(prefix: str) -> str:
    """The prefix as it will be matched; RuleError when it could never be safe."""
    text = prefix.strip()
    if not text:
        raise RuleError("a prefix rule needs the words the commands start with, e.g. 'git status'")
    if any(c in _OPERATORS for c in text):
        raise RuleError(f"the prefix {text!r} holds a shell operator: a rule covers plain commands only")
    try:
        shlex.split(text)
    except ValueError as exc:
        raise RuleError(f"the prefix {text!r} is not a command's words: {exc}") from None
    return text


def rule_for(scope: RuleScope, request: InteractionRequest, *, prefix: str | None, now_ms: int) -> ApprovalRule:
    """The rule an approval with `scope` makes for `request`; RuleError when it does not fit."""
    tool = tool_name_of(request)
    if tool is None:
        raise RuleError("only a tool's request can be allowed beyond once")
    if scope == "prefix":
        if tool != PREFIX_TOOL or not isinstance(request, ShellApprovalRequest):
            raise RuleError(f"a prefix rule is for {PREFIX_TOOL} commands, not for {tool}")
        checked = check_prefix(prefix or "")
        if not command_starts_with(request.command, checked):
            raise RuleError(f"this command does not start with {checked!r}: a prefix rule must cover it")
    elif prefix is not None:
        raise RuleError("'prefix' goes only with the scope prefix")
    if scope == "sequence" and not request.sequence_name:
        raise RuleError("this request comes from no saved sequence: allow it for this run instead")
    return ApprovalRule(
        rule_id=tool_rule_id(tool) if scope == "tool" else uuid.uuid4().hex[:12], tool=tool, scope=scope,
        run_id=request.turn_id if scope == "run" else None,
        sequence=request.sequence_name if scope == "sequence" else None,
        prefix=check_prefix(prefix or "") if scope == "prefix" else None,
        created_at=now_ms, from_interaction=request.interaction_id)


def scope_words(scope: Scope, request: InteractionRequest, prefix: str | None = None) -> str:
    """What choosing `scope` for `request` allows, in words, before the person confirms it."""
    tool = tool_name_of(request) or "this tool"
    if scope == "once":
        return "only this request"
    if scope == "run":
        return f"{tool} for the rest of this run (run {request.turn_id}), including its requests already waiting"
    if scope == "sequence":
        return f"{tool} every time the sequence '{request.sequence_name}' runs"
    if scope == "prefix":
        return f"every command that starts with `{prefix or ''}` (never one with ;, |, & or other operators)"
    return f"every {tool} request, in every sequence, until you take it back in Settings"
