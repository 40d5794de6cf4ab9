"""The one place that enforces the interaction rules (SPEC §3, seed `session_interaction.ts`).

A run asks a person something through `request` and waits on the handle, asks an approval through
`ask_approval` (allowed at once when a rule covers it), or a tool server's form through `ask_form` (its
reply as the server receives it); the person answers through `respond`; the control side ends runs with
`cancel_run` / `cancel_all`, and start-up cleans up after a dead process with `recover`. Every
transition is stored first and only then reaches anybody else (the bus, the waiting tool), so what a
person sees and what a tool resumes with is always what is on disk. Transitions of one interaction hold
that interaction's lock and re-read its stored status, so of two answers given at once exactly one
wins. Expiry uses a loop timer, never polling; a late answer to an interaction whose time is up is
refused as expired even if the timer has not fired yet.

An approval is asked only when no rule allows it (`allowing_rule`: the tool's mode, then the narrower
rules, as the rule book keeps them: `gui.core.asks.rule_book`); an answer to it must fit it
(`approval_problems`), and its end comes back to the tool as one `ApprovalOutcome` whose `reason` is
the sentence the tool fails with (`approval_outcome`): the approval asked, and what it comes to, are
here beside the rules they follow (an answer to a question or a form is checked in `gui.core.asks.responses`).

The requests waited on, their locks and timers, and how each changes or ends are `Waiting`
(`gui.core.asks.waiting`); the service holds one and hands it to its three collaborators: the
approvals of several people (`Approvers`, `gui.core.asks.approvers`), the follow-up sweep
(`FollowUps`, `gui.core.asks.follow_ups`) and the ends of requests nobody answered (`Ending`,
`gui.core.asks.ending`: a run stopped, the app closing, recovery).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from gui.core.asks.approvers import INBOX_VIEWS, Answered, Approvers, InboxView, in_view, required_of
from gui.core.asks.audit import Answerer, AuditLog
from gui.core.asks.ending import Ending
from gui.core.asks.failures import (
    InteractionError,
    InteractionNotPendingError,
    InteractionValidationError,
    ended_message,
)
from gui.core.asks.follow_ups import WATCH_EVERY, FollowUp, FollowUps, with_expiry
from gui.core.asks.interactions import (
    CANCEL_WORDS,
    ApprovalResponse,
    CancelledResult,
    ElicitationRequest,
    ElicitationResponse,
    ExpiredResult,
    InteractionRecord,
    InteractionRequest,
    InteractionResponse,
    InteractionResult,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    cancel_cause,
    tool_name_of,
)
from gui.core.asks.responses import response_problems
from gui.core.asks.rule_book import ApprovalModes
from gui.core.asks.rules import ApprovalRule, RuleError, rule_for, tool_rule_id
from gui.core.asks.store import InteractionStore
from gui.core.asks.waiting import Handle, Waiting
from gui.core.causes import CAUSES, CancelReason, EndCause
from gui.core.events import EventBus
from gui.core.people import Directory

_RESPONSE: TypeAdapter[InteractionResponse] = TypeAdapter(InteractionResponse)

# What a tool fails with when its approval was not given (English, as records keep it).
DENIED_REASON = "denied by the user"
EXPIRED_REASON = "not approved: the request expired before anyone answered"
# What a question (`ask_user`) fails with when the person declines it, or nobody answers in time.
DECLINED_REASON = "declined by the user: they chose not to answer"
UNANSWERED_REASON = "nobody answered before the request expired"


def cancelled_reason(reason: CancelReason, cause: EndCause | None = None) -> str:
    """What a tool whose request was cancelled fails with (English, as records keep it)."""
    words = CAUSES[cause].why if cause is not None else CANCEL_WORDS[reason]
    return f"not approved: the request was cancelled ({words})"


class ApprovalOutcome(BaseModel):
    """What the tool learns: may it run, and if not, why (a sentence for the person)."""

    model_config = ConfigDict(frozen=True)

    approved: bool
    reason: str | None = None
    auto: bool = False
    interaction_id: str
    edited_input: dict[str, Any] | None = None  # the person changed the arguments: run with these
    cause: EndCause | None = None  # not approved because of this (`gui.core.causes`), not by a person's no


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


class Approval:
    """An approval asked (`InteractionService.ask_approval`): allowed at once by a rule, its outcome
    already known, or waiting for a person (`waiting`) on its handle."""

    __slots__ = ("interaction_id", "waiting", "_handle", "_allowed")

    def __init__(self, interaction_id: str, *, handle: Handle | None = None,
                 allowed: ApprovalOutcome | None = None) -> None:
        self.interaction_id = interaction_id
        self.waiting = handle is not None
        self._handle, self._allowed = handle, allowed

    async def outcome(self) -> ApprovalOutcome:
        if self._handle is None:
            assert self._allowed is not None
            return self._allowed
        return approval_outcome(self.interaction_id, await self._handle.wait())


class Form:
    """A form asked (`InteractionService.ask_form`), waiting for a person on its handle. Its `response`
    is the reply the server receives: `cancel` when the request expired or was cancelled (nobody
    could answer: the server may go on with its defaults); a waiter that gives up withdraws it, so it
    does not linger in the inbox."""

    __slots__ = ("interaction_id", "_handle", "_withdraw")

    def __init__(self, handle: Handle, withdraw: Callable[[str, CancelReason], Awaitable[bool]]) -> None:
        self.interaction_id = handle.interaction_id
        self._handle, self._withdraw = handle, withdraw

    async def response(self) -> ElicitationResponse:
        try:
            result = await self._handle.wait()
        except asyncio.CancelledError:
            await asyncio.shield(self._withdraw(self.interaction_id, "turn_stopped"))
            raise
        if isinstance(result, ResolvedResult) and isinstance(result.response, ElicitationResponse):
            return result.response
        return ElicitationResponse.cancel()


class InteractionService:
    """`InteractionPort` for the asyncio loop it is used on, and the ends a runtime gives requests.

    `modes` are the approval modes and rules (`ApprovalModes`): asked before an approval, and where
    an answer with a scope saves its rule. `check_edit` says what is wrong with arguments a person
    edited in an approval (tool name, arguments -> problems; none: they fit the tool)."""

    def __init__(
        self,
        store: InteractionStore,
        bus: EventBus | None = None,
        clock: Callable[[], float] = time.time,
        *,
        modes: ApprovalModes,
        check_edit: Callable[[str, dict[str, Any]], list[str]] | None = None,
        audit: AuditLog | None = None,
        directory: Directory | None = None,
    ) -> None:
        self.store = store
        # Who holds which role (`gui.core.people`): on a team server, the gates of `gui.core.asks.approvers`
        # apply (who may answer, how many, no self-approval); None (the desktop): one person answers, once.
        self.directory = directory
        self.bus = bus
        self.modes = modes
        self.audit = audit  # every end is recorded there before anybody learns of it (`gui.core.asks.audit`)
        # (tool name, edited arguments) -> what is wrong with them (empty: they fit the tool's schema)
        self.check_edit: Callable[[str, dict[str, Any]], list[str]] | None = check_edit
        self.waiting = Waiting(store, bus, clock, audit)  # the requests waited on, their locks and timers
        self.approvers = Approvers(self.waiting, directory)  # several people, hand-overs (a team server)
        self.follow_ups = FollowUps(self.waiting)  # reminders, escalations, expiry
        self.ending = Ending(self.waiting, store)  # ends nobody answered: a run stopped, closing, recovery

    @property
    def clock(self) -> Callable[[], float]:
        """The time by which requests expire and are followed up (a test moves it)."""
        return self.waiting.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.waiting.clock = clock

    @property
    def shared(self) -> bool:
        """Other processes use the same store (a team's database)."""
        return self.waiting.shared

    @shared.setter
    def shared(self, shared: bool) -> None:
        self.waiting.shared = shared

    def now_ms(self) -> int:
        return self.waiting.now_ms()

    # --- execution side ---------------------------------------------------------------------

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> Handle:
        """Store the request, then announce it; `deadline` (epoch seconds) caps `expires_at`, as does
        its step's `expire_after`. A request whose step says nothing of who answers or when
        (`asking`) has nothing to follow up; one without an end has no expiry timer."""
        if request.asking is not None:
            request = with_expiry(request)
        if deadline is not None:
            cap = int(deadline * 1000)
            if request.expires_at is None or cap < request.expires_at:
                request = request.model_copy(update={"expires_at": cap})
        iid = request.interaction_id
        record = InteractionRecord(request=request)
        async with self.waiting.lock(iid):
            if await self.store.get(iid) is not None:
                raise InteractionError(f"interaction {iid} already exists", iid)
            # its end is timed as it is held; what ends it then is the follow-ups' (`FollowUps.expire`)
            handle = await self.waiting.hold(record, self.follow_ups.on_expiry)
            if request.asking is not None:  # who answers, and when they are reminded or someone else asked
                self.follow_ups.plan(record)
        self.waiting.announce_created(record)
        return handle

    async def ask_approval(
        self,
        request: ShellApprovalRequest | ToolApprovalRequest,
        tool_name: str,
        *,
        deadline: float | None = None,
    ) -> Approval:
        """Ask unless a rule allows `request` (`allowing_rule`: then an auto-approval is recorded, and
        the approval is decided at once); its `outcome` is what the tool learns."""
        iid = request.interaction_id
        rule = None if self._gated(request) else allowing_rule(self.modes, request, tool_name)
        if rule is not None:
            await self.record_auto_approval(request, rule)
            return Approval(iid, allowed=ApprovalOutcome(approved=True, auto=True, interaction_id=iid))
        return Approval(iid, handle=await self.request(request, deadline=deadline))

    async def ask_form(self, request: ElicitationRequest, *, deadline: float | None = None) -> Form:
        """Put a tool server's form in the inbox (`request`); its `response` is the person's reply."""
        return Form(await self.request(request, deadline=deadline), self.cancel)

    async def approve(
        self,
        request: ShellApprovalRequest | ToolApprovalRequest,
        tool_name: str,
        *,
        deadline: float | None = None,
    ) -> ApprovalOutcome:
        """`ask_approval`, waiting for its outcome."""
        return await (await self.ask_approval(request, tool_name, deadline=deadline)).outcome()

    async def record_auto_approval(
        self, request: ShellApprovalRequest | ToolApprovalRequest, rule: ApprovalRule | None = None
    ) -> InteractionRecord:
        """Store an approval nobody was asked for, already resolved, marked `auto` with its rule."""
        iid = request.interaction_id
        result = ResolvedResult(interaction_id=iid, response=ApprovalResponse(decision="approved"))
        record = InteractionRecord(
            request=request, status="resolved", result=result, resolved_at=self.now_ms(), auto=True,
            rule_id=rule.rule_id if rule else None, rule_text=rule.text if rule else None,
        )
        async with self.waiting.lock(iid):
            if await self.store.get(iid) is not None:
                raise InteractionError(f"interaction {iid} already exists", iid)
            await self.waiting.save(record, self.waiting.decision(record))
        self.waiting.drop_lock(iid)
        self.waiting.announce_created(record)
        self.waiting.announce_ended(record)
        return record

    # --- the person's side ------------------------------------------------------------------

    async def respond(
        self, interaction_id: str, response: InteractionResponse | dict[str, Any], by: Answerer | None = None
    ) -> Answered:
        """Validate the answer, store it, then wake the waiting tool and announce the end; `by` is who
        answered, for the record of decisions. On a team server (`directory`) the answer must come
        from someone who may give it (`gui.core.asks.approvers`); an approval that needs more people
        is stored as one of them (`StillWaiting`) and the request stays pending."""
        parsed = _parse_response(interaction_id, response)
        async with self.waiting.lock(interaction_id):
            record = await self.waiting.pending(interaction_id)
            expires_at = record.request.expires_at
            if expires_at is not None and self.now_ms() >= expires_at:
                ended = await self.waiting.end(record, ExpiredResult(interaction_id=interaction_id))
                raise InteractionNotPendingError(ended_message(ended), interaction_id)
            if parsed.kind != record.request.kind:
                problems = [wrong_kind(record.request, parsed)]
            else:
                if self.directory is not None:  # who may answer it, and whether they already did
                    record = await self.approvers.gate(record, parsed, by)
                problems = (approval_problems(record.request, parsed) if isinstance(parsed, ApprovalResponse)
                            else response_problems(record.request, parsed))
            if not problems and isinstance(parsed, ApprovalResponse) and parsed.edited_input is not None:
                problems = self._edit_problems(record.request, parsed.edited_input)
            if problems:
                raise InteractionValidationError("; ".join(problems), interaction_id)
            if self.directory is not None and isinstance(parsed, ApprovalResponse) and parsed.decision == "approved" \
                    and required_of(record) > 1:
                record, waiting = await self.approvers.sign(record, parsed, by)
                if waiting is not None:
                    return waiting
            rule = await self._save_rule(record.request, parsed)
            result = ResolvedResult(interaction_id=interaction_id, response=parsed)
            await self.waiting.end(record, result, by)
        if rule is not None:
            await self._allow_waiting(rule, interaction_id)
        return result

    async def hand_over(self, interaction_id: str, to: str, note: str = "",
                        by: Answerer | None = None) -> InteractionRecord:
        """`Approvers.hand_over`: `by` hands the request to `to` with a note."""
        return await self.approvers.hand_over(interaction_id, to, note, by)

    async def follow_up(self, *, everywhere: bool = False) -> list[tuple[str, FollowUp]]:
        """`FollowUps.follow_up`: remind or escalate every waiting request whose time has come."""
        return await self.follow_ups.follow_up(everywhere=everywhere)

    def watch_all(self, every: float = WATCH_EVERY) -> None:
        """`FollowUps.watch_all`: follow up every pending request in the shared store from now on."""
        self.follow_ups.watch_all(every)

    async def stop_watching(self) -> None:
        await self.follow_ups.stop_watching()

    def _gated(self, request: InteractionRequest) -> bool:
        """On a team server, a request named people or several must approve: never allowed by one
        person's rule (neither when asked, nor by a rule made while it waits)."""
        return self.directory is not None and request.asking is not None and request.asking.gated

    async def inbox(self, person: str, view: InboxView) -> list[InteractionRecord]:
        """The pending requests in one view of `person`'s inbox, oldest first: "needs_you" (they may
        answer it now), "waiting" (on others), "started_by_you". On the desktop everything needs you."""
        if view not in INBOX_VIEWS:
            raise InteractionValidationError(f"there is no inbox view {view!r}: use one of {', '.join(INBOX_VIEWS)}")
        pending = await self.pending()
        if self.directory is None:
            return pending if view == "needs_you" else []
        roles = await self.directory.roles_of(person)
        return [record for record in pending if in_view(record, view, person, roles)]

    def _edit_problems(self, request: InteractionRequest, edited: dict[str, Any]) -> list[str]:
        tool = tool_name_of(request)
        if self.check_edit is None or tool is None:
            return ["this request cannot be answered with an edit"]
        return self.check_edit(tool, edited)

    async def _save_rule(self, request: InteractionRequest, response: InteractionResponse) -> ApprovalRule | None:
        """Saves the rule an approval with a scope makes, before the answer: once `respond` returns,
        the person was told it is allowed, and a crash must not take that back."""
        if not (isinstance(response, ApprovalResponse) and response.widens and response.scope != "once"):
            return None
        rule = rule_for(response.scope, request, prefix=response.prefix, now_ms=self.now_ms())
        if rule.scope == "tool":
            await self.modes.set(rule.tool, "always-allow")
        else:
            await self.modes.add_rule(rule)
        return rule

    async def _allow_waiting(self, rule: ApprovalRule, answered: str) -> None:
        """Requests already waiting that the new rule covers are approved by it now (a sibling in the
        same run must not keep asking what the person just allowed)."""
        for waiting in await self.store.list("pending"):
            iid = waiting.interaction_id
            if iid == answered or not rule.matches(waiting.request) or self._gated(waiting.request):
                continue
            async with self.waiting.lock(iid):
                current = await self.store.get(iid)
                if current is None or current.status != "pending":
                    continue
                marked = current.model_copy(update={"auto": True, "rule_id": rule.rule_id, "rule_text": rule.text})
                await self.waiting.end(marked, ResolvedResult(interaction_id=iid,
                                                              response=ApprovalResponse(decision="approved")))

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        return await self.store.get(interaction_id)

    async def pending(self, run_id: str | None = None) -> list[InteractionRecord]:
        records = await self.store.list("pending")
        return [r for r in records if run_id is None or r.request.turn_id == run_id]

    # --- control side: ending requests nobody answered (`gui.core.asks.ending`) ---------------

    def note_ending(self, run_id: str, cause: EndCause | None) -> None:
        """`Ending.note_ending`: what is ending `run_id` (None: it has ended)."""
        self.ending.note_ending(run_id, cause)

    async def cancel(self, interaction_id: str, reason: CancelReason, cause: EndCause | None = None) -> bool:
        """`Ending.cancel`: cancel one request; False when it had already ended."""
        return await self.ending.cancel(interaction_id, reason, cause)

    async def cancel_run(self, run_id: str, reason: CancelReason = "turn_stopped",
                         cause: EndCause | None = None) -> list[str]:
        """`Ending.cancel_run`: every request this service waits on for `run_id`; the ids cancelled."""
        return await self.ending.cancel_run(run_id, reason, cause)

    async def cancel_runs(self, runs: Mapping[str, EndCause | None], reason: CancelReason = "turn_stopped") -> None:
        """`Ending.cancel_runs`: `cancel_run` of many runs, stored in one write."""
        await self.ending.cancel_runs(runs, reason)

    async def cancel_all(self, reason: CancelReason, cause: EndCause | None = None,
                         keep: frozenset[str] = frozenset()) -> None:
        """`Ending.cancel_all`: every pending request this process may end, but those of the runs in `keep`."""
        await self.ending.cancel_all(reason, cause, keep)

    async def recover(self, keep: frozenset[str] = frozenset()) -> list[str]:
        """`Ending.recover`: at start-up, what a dead process left pending; the runs it touched."""
        return await self.ending.recover(keep)

    async def changed_elsewhere(self, interaction_id: str) -> None:
        """Another process sharing the store asked or ended this request (a team's database says
        so): a request this process waits on is woken with the stored outcome; any other change is
        announced here too, so this process's pages follow."""
        async with self.waiting.lock(interaction_id):
            record = await self.store.get(interaction_id)
            if record is None:
                return
            if record.status == "pending":
                if interaction_id not in self.waiting:
                    self.waiting.announce_created(record)
                else:  # changed there while still pending (an approval of several, a hand-over): as stored now
                    self.waiting.update(record)
                return
            if interaction_id in self.waiting:
                self.waiting.settle(record)
            else:
                self.waiting.announce_ended(record)
            self.waiting.drop_lock(interaction_id)


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


_ARTICLE = {"approval": "an approval", "question": "a question", "elicitation": "an elicitation"}


def wrong_kind(request: InteractionRequest, response: InteractionResponse) -> str:
    """Why an answer of another kind than its request's cannot answer it."""
    return (f"interaction {request.interaction_id} is {_ARTICLE[request.kind]}: "
            f"{_ARTICLE[response.kind]} response does not fit it")


def _parse_response(
    interaction_id: str, response: InteractionResponse | dict[str, Any]
) -> InteractionResponse:
    if not isinstance(response, dict):
        return response
    try:
        return _RESPONSE.validate_python(response)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'response'}: {e['msg']}" for e in exc.errors()
        )
        raise InteractionValidationError(
            f"the response is not well formed: {details}", interaction_id
        ) from None
