"""Approval rules: what a person allowed beyond one request, exactly as wide as they chose, and only
for what they saw.

An approval is answered for one request (`once`, the default) or with a scope that makes a rule:

- `run`: this step, for the rest of this run (a request of the same step already waiting included);
- `sequence`: this step of this saved sequence, as it is now, whenever the sequence runs;
- `prefix`: `cmd_run` commands of this step that start with the given words (`git status`), whatever
  its inputs put after them. A command that holds a shell operator (`;`, `&`, `|`, `<`, `>`, `$`, a
  backquote, parentheses, a newline) never matches, so `git status; rm -rf x` is asked about even
  with a `git status` rule;
- `tool`: this tool everywhere, whatever it runs (what "always allow" meant before scopes);
- `program`: a program's request (`seqdesk ask`, `POST /api/asks`): the same program (by the name it
  gave) asking the same command (or, without one, the same text) again. A program's request takes no
  other scope, and no other scope's rule covers it: no tool's "always allow" lets a program in.

**A rule covers the step it was made from.** Every approval request carries the fingerprint of the
step that asks (`gui.core.sequences.fingerprint`: the tool, its arguments as written before inputs go in, its
group's inputs) and the identity of its saved sequence (`Sequence.identity`). A `run`, `sequence` or
`prefix` rule keeps the fingerprint (a `sequence` rule the identity too), and covers a request only
when they are equal: a sequence changed after the
person said yes (another command, `PUT /api/sequences/{name}`), or deleted and made again under the
same name, asks again. A `sequence` rule whose step its sequence no longer has is shown as made
"for an earlier version" (`made_for_earlier_version`); deleting a sequence removes its rules
(`RuleBook.forget`), and a sequence made again never gets its old identity, so no rule passes on.

**A prefix rule covers its words, in its step.** It is narrower than a `sequence` rule: of the
commands the step makes from its inputs, only those that start with the words, checked on the
command as it is about to run (after its inputs are put in); a command that starts otherwise, or
holds an operator, asks. It is not tied to one sequence: the same step (same tool, same argument
templates, same inputs) in another sequence is what the person saw too.

**An input run as code is asked about every time.** When an input of the step lands where a
program runs it as code (`sh -c "$args.x"`, `eval`: `ShellApprovalRequest.run_as_code`), the person
saw one value's code, and the next run may bring any other: no `run`, `sequence` or `prefix` rule
covers such a request, and none can be made from it. Only a `tool` rule ("whatever it runs") does.

**Rules kept by an earlier SeqDesk** (no fingerprint): a `sequence` or `run` rule covers nothing
any more (its step asks again, once, and a new answer makes a new rule); Settings shows such a
`sequence` rule as made for an earlier version (a `run` rule's run ended when that SeqDesk did). A
`prefix` rule of then covers its words in any step, as it said when it was made (its words in
Settings and in records say so: "commands that start with …", without a step), and a `tool` rule
works as before.

`tool` rules live in the approval modes (`always-allow`); the others are `ApprovalRule`s kept beside
them. Each has an id, and every auto-approval records the rule that allowed it.
"""

from __future__ import annotations

import re
import shlex
import uuid
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gui.core.asks.interactions import (
    InteractionRequest,
    ProgramSource,
    ShellApprovalRequest,
    ToolApprovalRequest,
    tool_name_of,
)
from gui.core.errors import Invalid
from gui.core.marks import N_, Sentence, Translate, as_written
from gui.core.sequences import Sequence, step_fingerprints

Scope = Literal["once", "run", "sequence", "prefix", "tool", "program"]
RuleScope = Literal["run", "sequence", "prefix", "tool", "program"]
SCOPES: tuple[Scope, ...] = ("once", "run", "sequence", "prefix", "tool", "program")
STEP_SCOPES: frozenset[str] = frozenset({"run", "sequence", "prefix"})  # rules that cover one step only
PREFIX_TOOL = "cmd_run"
PROGRAMS = "seqdesk ask"  # what a program's rule is listed under (a name no tool can have: it holds a space)
_OPERATORS = frozenset(";&|<>$`()\n\r")


class RuleError(Invalid):
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
    # The step it was made from (`gui.core.sequences.fingerprint`): a run, sequence or prefix rule covers that step
    # only. None: kept by an earlier SeqDesk (see the module's words).
    step_fingerprint: str | None = None
    sequence_identity: str | None = None  # scope sequence: which saved sequence (`Sequence.identity`)
    group: str | None = None  # the step's group when the rule was made (its words name it)
    asker: str | None = None  # scope program: the name the program gave itself
    command: str | None = None  # scope program: what it asked (`program_words`), exactly
    # The host its step runs on (`ToolCall.on`, the request's `host`): a run, sequence or prefix rule
    # covers its step on that host only (None: where the run runs), never on another.
    host: str | None = None

    @property
    def text(self) -> str:
        """The rule in words, as the inbox and Settings show it (English; `words(tr)` in another language)."""
        return self.words()

    def words(self, tr: Translate = as_written) -> str:
        template = (EARLIER_RULE_WORDS[self.scope] if self.scope in EARLIER_RULE_WORDS
                    and self.step_fingerprint is None else
                    HOSTED_RULE_WORDS[self.scope] if self.scope in HOSTED_RULE_WORDS and self.host is not None
                    else RULE_WORDS[self.scope])
        fields = {"tool": self.tool, "run_id": self.run_id, "sequence": self.sequence, "prefix": self.prefix,
                  "group": self.group or "", "asker": self.asker or "", "command": self.command or "",
                  "host": self.host or ""}
        return Sentence(template, tuple(fields.items())).render(tr)

    def matches(self, request: InteractionRequest) -> bool:
        if not isinstance(request, ShellApprovalRequest | ToolApprovalRequest):
            return False
        asker = program_of(request)
        if asker is not None or self.scope == "program":
            return (self.scope == "program" and asker == self.asker and isinstance(request, ShellApprovalRequest)
                    and program_words(request) == self.command)
        if tool_name_of(request) != self.tool:
            return False
        if self.scope in STEP_SCOPES and runs_input_as_code(request):
            return False  # the person saw one value run as code, not every value the step may get
        if self.scope in STEP_SCOPES and self.step_fingerprint is None and self.scope != "prefix":
            return False  # an earlier SeqDesk's run or sequence rule: its step is not known
        if self.step_fingerprint is not None and request.step_fingerprint != self.step_fingerprint:
            return False
        if self.scope in STEP_SCOPES and request.host != self.host:
            return False  # made for the step on one host: another host asks again
        if self.scope == "run":
            return request.turn_id == self.run_id
        if self.scope == "sequence":
            return (bool(self.sequence) and request.sequence_name == self.sequence
                    and self.sequence_identity is not None and request.sequence_identity == self.sequence_identity)
        if self.scope == "prefix":
            return isinstance(request, ShellApprovalRequest) and command_starts_with(request.command, self.prefix or "")
        return True


def made_for_earlier_version(rule: ApprovalRule, sequence: Sequence | None) -> bool:
    """Whether a `sequence` rule was made for a step that its sequence (`sequence`: the one saved now
    under the rule's name, if any) no longer has as it was: the step changed, the sequence was deleted
    or made again, or the rule was kept by an earlier SeqDesk. Such a rule allows nothing: the step asks."""
    if rule.scope != "sequence":
        return False
    if rule.step_fingerprint is None or sequence is None or sequence.identity != rule.sequence_identity:
        return True
    return not any(rule.step_fingerprint in step_fingerprints(group, rule.tool) for group in sequence.groups)


def program_of(request: InteractionRequest) -> str | None:
    """The name a program that asked gave itself ("" when it gave none); None when no program asked."""
    return request.source.asker if isinstance(request.source, ProgramSource) else None


def program_words(request: ShellApprovalRequest) -> str:
    """What a program's approval asks, as a rule keeps it: its command, or its text when it has none."""
    return request.command or request.description or ""


def runs_input_as_code(request: InteractionRequest) -> bool:
    """Whether an input of the asking step lands where a program runs it as code (`sh -c "$args.x"`):
    what the person saw is that one value, so no rule for the step covers the next one."""
    return isinstance(request, ShellApprovalRequest) and bool(request.run_as_code)


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
    asker = program_of(request)
    if asker is not None or scope == "program":
        return _program_rule(scope, request, asker, prefix=prefix, now_ms=now_ms)
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
    if scope == "sequence" and not (request.sequence_name and request.sequence_identity):
        raise RuleError("this request comes from no saved sequence: allow it for this run instead")
    if scope in STEP_SCOPES and runs_input_as_code(request):
        raise RuleError("an input of this step will be run as a command, so each of its values is asked about: "
                        "allow it once")
    if scope in STEP_SCOPES and request.step_fingerprint is None:
        raise RuleError("this request does not say which step asks, so no rule can cover only that step: "
                        "allow it once")
    if scope == "tool":
        return ApprovalRule(rule_id=tool_rule_id(tool), tool=tool, scope=scope, created_at=now_ms,
                            from_interaction=request.interaction_id)
    return ApprovalRule(
        rule_id=uuid.uuid4().hex[:12], tool=tool, scope=scope,
        run_id=request.turn_id if scope == "run" else None,
        sequence=request.sequence_name if scope == "sequence" else None,
        prefix=check_prefix(prefix or "") if scope == "prefix" else None,
        created_at=now_ms, from_interaction=request.interaction_id,
        step_fingerprint=request.step_fingerprint,
        sequence_identity=request.sequence_identity if scope == "sequence" else None,
        group=request.group_name or None, host=request.host)


def _program_rule(scope: RuleScope, request: InteractionRequest, asker: str | None, *, prefix: str | None,
                  now_ms: int) -> ApprovalRule:
    if asker is None or not isinstance(request, ShellApprovalRequest):
        raise RuleError("the scope 'program' is for a program's approval (seqdesk ask)")
    if scope != "program":
        raise RuleError(f"a program's request is allowed once, or whenever the same program asks the same "
                        f"again (scope 'program'), not with the scope '{scope}'")
    if prefix is not None:
        raise RuleError("'prefix' goes only with the scope prefix")
    return ApprovalRule(rule_id=uuid.uuid4().hex[:12], tool=PROGRAMS, scope="program", asker=asker,
                        command=program_words(request), created_at=now_ms, from_interaction=request.interaction_id)


RULE_WORDS: dict[RuleScope, str] = {  # a rule in words (as kept in records: `rule_text_words` reads them back)
    "run": N_("{tool} in one step (group '{group}'), for the rest of run {run_id}"),
    "sequence": N_("{tool} in one step of the sequence '{sequence}' (group '{group}'), as it was when you allowed it"),
    "prefix": N_("commands that start with `{prefix}`, in one step (group '{group}')"),
    "tool": N_("every {tool} request, in every sequence"),
    "program": N_("`{command}` whenever the program that calls itself '{asker}' asks it"),
}
# The words of a rule for a step that runs on a host (`ApprovalRule.host`).
HOSTED_RULE_WORDS: dict[RuleScope, str] = {
    "run": N_("{tool} in one step (group '{group}') on the host {host}, for the rest of run {run_id}"),
    "sequence": N_("{tool} in one step of the sequence '{sequence}' (group '{group}') on the host {host}, as it "
                   "was when you allowed it"),
    "prefix": N_("commands that start with `{prefix}`, in one step (group '{group}') on the host {host}"),
}
# The words of a run or sequence rule kept by an earlier SeqDesk (no step: see the module's words),
# as they read then; records keep them too.
EARLIER_RULE_WORDS: dict[RuleScope, str] = {
    "run": N_("{tool} for the rest of run {run_id}"),
    "sequence": N_("{tool} whenever the sequence '{sequence}' runs"),
    "prefix": N_("commands that start with `{prefix}`"),
}
_FIELD = re.compile(r"\{(\w+)\}")
_FIELD_PATTERN = {"tool": r"\S+", "run_id": r"\S+"}  # any other field: any text


def _pattern(template: str) -> re.Pattern[str]:
    """The pattern that reads a rule template's English words back into its fields."""
    parts = _FIELD.split(template)  # text, field, text, field, …, text
    regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>{_FIELD_PATTERN.get(part, '.*')})"
                    for i, part in enumerate(parts))
    return re.compile(f"^{regex}$", re.S)


@lru_cache(maxsize=1)
def _rule_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, _pattern(t)) for t in (*HOSTED_RULE_WORDS.values(), *RULE_WORDS.values(),
                                            *EARLIER_RULE_WORDS.values()))


def rule_text_words(text: str, tr: Translate = as_written) -> str:
    """A rule's words as kept in a record (English, `ApprovalRule.text`) said again through `tr`;
    text that is not a rule's words comes back as it is."""
    for template, pattern in _rule_patterns():
        match = pattern.match(text)
        if match is not None:
            return Sentence(template, tuple(match.groupdict().items())).render(tr)
    return text


def scope_words(scope: Scope, request: InteractionRequest, prefix: str | None = None,
                tr: Translate = as_written) -> str:
    """What choosing `scope` for `request` allows, in words, before the person confirms it."""
    words = _scope_words(scope, request, prefix, tr)
    host = getattr(request, "host", None)
    if host is not None and scope in STEP_SCOPES:
        return tr(N_("{words}; on the host {host} only: the same step on another host still asks")).format(
            words=words, host=host)
    return words


def _scope_words(scope: Scope, request: InteractionRequest, prefix: str | None, tr: Translate) -> str:
    tool = tool_name_of(request) or tr(N_("this tool"))
    if scope == "once":
        return tr(N_("only this request"))
    if scope == "program":
        command = program_words(request) if isinstance(request, ShellApprovalRequest) else ""
        return tr(N_("this same request (`{command}`) whenever the program that calls itself '{asker}' asks it "
                     "again, until you take it back in Settings; anything else it asks is asked about")).format(
            command=command, asker=program_of(request) or "")
    if scope == "run":
        return tr(N_("this exact step ({tool} in group '{group}') for the rest of this run (run {run_id}); "
                     "any other step still asks")).format(
            tool=tool, group=request.group_name, run_id=request.turn_id)
    if scope == "sequence":
        return tr(N_("this exact step of the sequence '{sequence}' ({tool} in group '{group}'), as it is now, "
                     "every time the sequence runs; if the step changes, you will be asked again")).format(
            tool=tool, group=request.group_name, sequence=request.sequence_name)
    if scope == "prefix":
        return tr(N_("the commands of this exact step ({tool} in group '{group}') that start with `{prefix}`, "
                     "whatever its inputs put after them, wherever the step runs as it is now (never one with ;, "
                     "|, & or other operators); if the step changes, you will be asked again")).format(
            tool=tool, group=request.group_name, prefix=prefix or "")
    return tr(N_("every {tool} request, in every sequence, whatever it runs, until you take it back in "
                 "Settings")).format(tool=tool)
