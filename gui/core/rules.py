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

import re
import shlex
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gui.core.interactions import InteractionRequest, ShellApprovalRequest, ToolApprovalRequest, tool_name_of
from gui.core.marks import N_, Translate, as_written

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
        """The rule in words, as the inbox and Settings show it (English; `words(tr)` in another language)."""
        return self.words()

    def words(self, tr: Translate = as_written) -> str:
        return rule_words(self.scope, self.tool, run_id=self.run_id, sequence=self.sequence, prefix=self.prefix,
                          tr=tr)

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


RULE_WORDS: dict[RuleScope, str] = {  # a rule in words; `RULE_TEXT` reads them back (as kept in records)
    "run": N_("{tool} for the rest of run {run_id}"),
    "sequence": N_("{tool} whenever the sequence '{sequence}' runs"),
    "prefix": N_("commands that start with `{prefix}`"),
    "tool": N_("every {tool} request, in every sequence"),
}
RULE_TEXT: dict[RuleScope, re.Pattern[str]] = {
    "run": re.compile(r"^(?P<tool>\S+) for the rest of run (?P<run_id>\S+)$"),
    "sequence": re.compile(r"^(?P<tool>\S+) whenever the sequence '(?P<sequence>.*)' runs$", re.S),
    "prefix": re.compile(r"^commands that start with `(?P<prefix>.*)`$", re.S),
    "tool": re.compile(r"^every (?P<tool>\S+) request, in every sequence$"),
}


def rule_words(scope: RuleScope, tool: str, *, run_id: str | None = None, sequence: str | None = None,
               prefix: str | None = None, tr: Translate = as_written) -> str:
    return tr(RULE_WORDS[scope]).format(tool=tool, run_id=run_id, sequence=sequence, prefix=prefix)


def rule_text_words(text: str, tr: Translate = as_written) -> str:
    """A rule's words as kept in a record (English, `ApprovalRule.text`) said again through `tr`;
    text that is not a rule's words comes back as it is."""
    for scope, pattern in RULE_TEXT.items():
        match = pattern.match(text)
        if match is not None:
            return rule_words(scope, match.groupdict().get("tool") or "", **{k: v for k, v in match.groupdict().items()
                                                                          if k != "tool"}, tr=tr)
    return text


def scope_words(scope: Scope, request: InteractionRequest, prefix: str | None = None,
                tr: Translate = as_written) -> str:
    """What choosing `scope` for `request` allows, in words, before the person confirms it."""
    tool = tool_name_of(request) or tr(N_("this tool"))
    if scope == "once":
        return tr(N_("only this request"))
    if scope == "run":
        return tr(N_("{tool} for the rest of this run (run {run_id}), including its requests already waiting")).format(
            tool=tool, run_id=request.turn_id)
    if scope == "sequence":
        return tr(N_("{tool} every time the sequence '{sequence}' runs")).format(tool=tool,
                                                                               sequence=request.sequence_name)
    if scope == "prefix":
        return tr(N_("every command that starts with `{prefix}` (never one with ;, |, & or other operators)")).format(
            prefix=prefix or "")
    return tr(N_("every {tool} request, in every sequence, until you take it back in Settings")).format(tool=tool)
