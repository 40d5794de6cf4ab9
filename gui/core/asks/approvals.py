"""Whether a tool may run without asking, and what an approval's end means (SPEC §3 rule 6).

A tool is `ask` (the default) or `always-allow`: a person sets the latter from the inbox with
"approve and always allow" and takes it back in the settings; narrower rules (`gui.core.asks.rules`)
sit beside the modes. `allowing_rule` finds what lets a request run without asking; every way an
approval can end (approved, denied, expired, cancelled) comes back as one `ApprovalOutcome` whose
`reason` is the sentence the tool fails with (`approval_outcome`); and whether a person's answer to
an approval fits it (`approval_problems`: an answer to a question or a form is `gui.core.asks.responses`').
The interaction service asks (`InteractionService.ask_approval`), answers and uses all three; nothing
here calls back into it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from gui.core.asks.interactions import (
    CANCEL_WORDS,
    ApprovalMode,
    ApprovalResponse,
    CancelledResult,
    ExpiredResult,
    InteractionRequest,
    InteractionResult,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
)
from gui.core.asks.rules import ApprovalRule, RuleError, rule_for, tool_rule_id
from gui.core.causes import CAUSES, REASON_CAUSES, CancelReason, EndCause

APPROVAL_MODES: tuple[ApprovalMode, ...] = ("ask", "always-allow")
DENIED_REASON = "denied by the user"
EXPIRED_REASON = "not approved: the request expired before anyone answered"
# What a question (`ask_user`) fails with when the person declines it, or nobody answers in time.
DECLINED_REASON = "declined by the user: they chose not to answer"
UNANSWERED_REASON = "nobody answered before the request expired"


def cancelled_reason(reason: CancelReason, cause: EndCause | None = None) -> str:
    """What a tool whose request was cancelled fails with (English, as records keep it)."""
    words = CAUSES[cause].why if cause is not None else CANCEL_WORDS[reason]
    return f"not approved: the request was cancelled ({words})"


def cancel_cause(result: CancelledResult) -> EndCause | None:
    """What ended a cancelled request: its cause, or what its reason alone tells (a result kept before causes)."""
    return result.cause or REASON_CAUSES.get(result.reason)


class ApprovalModes(Protocol):
    """Approval mode per tool name (a tool never set is `ask`, and `all` lists only the others), and
    the narrower rules (`gui.core.asks.rules`: run, sequence, prefix) beside them.

    `set`, `add_rule` and `remove_rule` apply at once (the next `get` or `rules` sees it) and return
    an awaitable that completes once the change is durable: whoever acknowledges a change to a
    person awaits it first.
    """

    def get(self, tool_name: str) -> ApprovalMode: ...

    def set(self, tool_name: str, mode: ApprovalMode) -> Awaitable[None]: ...

    def all(self) -> dict[str, ApprovalMode]: ...

    def rules(self) -> list[ApprovalRule]: ...

    def add_rule(self, rule: ApprovalRule) -> Awaitable[None]: ...

    def remove_rule(self, rule_id: str) -> Awaitable[None]: ...


def allowing_rule(modes: ApprovalModes, request: ShellApprovalRequest | ToolApprovalRequest,
                  tool_name: str) -> ApprovalRule | None:
    """The rule that lets `request` run without asking, if any: the tool's mode, then the rules. A
    request that names no tool (a program's) has no mode: only a rule made for it covers it."""
    if tool_name and modes.get(tool_name) == "always-allow":
        return ApprovalRule(rule_id=tool_rule_id(tool_name), tool=tool_name, scope="tool")
    return next((rule for rule in modes.rules() if rule.matches(request)), None)


def approval_problems(request: InteractionRequest, response: ApprovalResponse) -> list[str]:
    """Everything wrong with `response` as an answer to the approval `request` (the service has checked
    that `request` is an approval; empty: it fits): an
    edited input only with a plain approval (approved, once: a rule covers requests as they are asked,
    never a change of one), a scope only with an approval, and one a rule can be made of for `request`.
    The service refuses an answer with any problem before anything is stored."""
    if response.always_allow and response.decision != "approved":
        return ["'always allow' goes only with an approval, not with a denial"]
    if response.edited_input is not None and response.decision != "approved":
        return ["an edit goes only with an approval: the tool runs with the edited input"]
    if response.edited_input is not None and response.scope != "once":
        # A rule covers requests as they are asked; the person changed this one, so it is approved once.
        return [f"an edit is approved once: it cannot go with the scope '{response.scope}' (a rule covers "
                "requests as they are asked, and this one was changed); send edited_input without a scope"]
    if response.scope != "once" and response.decision != "approved":
        return [f"the scope '{response.scope}' goes only with an approval, not with a denial"]
    if response.scope == "once":
        return ["'prefix' goes only with the scope prefix"] if response.prefix is not None else []
    try:
        rule_for(response.scope, request, prefix=response.prefix, now_ms=0)
    except RuleError as exc:
        return [str(exc)]
    return []


class Done:
    """An awaitable that has already completed: `set` of a store with nothing to wait for."""

    def __await__(self) -> Generator[Any, None, None]:
        yield from ()


DONE = Done()


class ApprovalOutcome(BaseModel):
    """What the tool learns: may it run, and if not, why (a sentence for the person)."""

    model_config = ConfigDict(frozen=True)

    approved: bool
    reason: str | None = None
    auto: bool = False
    interaction_id: str
    edited_input: dict[str, Any] | None = None  # the person changed the arguments: run with these
    cause: EndCause | None = None  # not approved because of this (`gui.core.causes`), not by a person's no


def check_mode(mode: str) -> ApprovalMode:
    if mode not in APPROVAL_MODES:
        raise ValueError(f"'{mode}' is not an approval mode: use one of {', '.join(APPROVAL_MODES)}")
    return mode


def approval_outcome(interaction_id: str, result: InteractionResult) -> ApprovalOutcome:
    """What the end of an approval a person was asked for means for the tool."""
    if isinstance(result, ResolvedResult) and isinstance(result.response, ApprovalResponse):
        response = result.response
        if response.decision == "approved":
            # a rule it made is saved by `respond`; an edit was checked against the tool's schema there
            return ApprovalOutcome(approved=True, interaction_id=interaction_id, edited_input=response.edited_input)
        said = f": {response.reason}" if response.reason else ""
        return ApprovalOutcome(approved=False, reason=DENIED_REASON + said, interaction_id=interaction_id)
    if isinstance(result, ExpiredResult):
        return ApprovalOutcome(approved=False, reason=EXPIRED_REASON, interaction_id=interaction_id, cause="expired")
    if isinstance(result, CancelledResult):
        cause = cancel_cause(result)
        return ApprovalOutcome(approved=False, reason=cancelled_reason(result.reason, cause),
                               interaction_id=interaction_id, cause=cause)
    raise AssertionError(f"unexpected result for approval {interaction_id}: {result!r}")  # validation forbids it
