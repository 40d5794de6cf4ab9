"""The one place that enforces the interaction rules (SPEC §3, seed `session_interaction.ts`).

A run asks a person something through `request` and waits on the handle, or asks an approval
through `ask_approval` (allowed at once when a rule covers it, `gui.core.asks.approvals`); the
person answers through `respond`; the control side ends runs with `cancel_run` / `cancel_all`, and
start-up cleans up after a dead process with `recover`. Every transition is stored first and only then
reaches anybody else (the bus, the waiting tool), so what a person sees and what a tool resumes
with is always what is on disk. Transitions of one interaction hold that interaction's lock and
re-read its stored status, so of two answers given at once exactly one wins. Expiry uses a loop
timer, never polling; a late answer to an interaction whose time is up is refused as expired even
if the timer has not fired yet.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from gui.core.asks.approvals import (
    ApprovalModes,
    ApprovalOutcome,
    allowing_rule,
    approval_outcome,
    approval_problems,
)
from gui.core.asks.approvers import (
    INBOX_VIEWS,
    Answered,
    InboxView,
    StillWaiting,
    in_view,
    refusal,
    required_of,
)
from gui.core.asks.audit import Answerer, AuditLog, decision_of, step_of
from gui.core.asks.follow_ups import FollowUp, default_answers, due, next_due, who_to_tell, with_expiry
from gui.core.asks.interactions import (
    ApprovalResponse,
    CancelledResult,
    ExpiredResult,
    InteractionRecord,
    InteractionRequest,
    InteractionResponse,
    InteractionResult,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    tool_name_of,
)
from gui.core.asks.responses import response_problems
from gui.core.asks.rules import ApprovalRule, rule_for
from gui.core.asks.signoffs import Handover, Signoff
from gui.core.asks.store import InteractionStore
from gui.core.causes import REASON_CAUSES, CancelReason, EndCause, reason_for
from gui.core.errors import Conflict, Invalid, NotFound
from gui.core.events import EventBus, InteractionChanged, InteractionCreated, InteractionEnded
from gui.core.people import Directory
from gui.core.sequences import split_target

log = logging.getLogger(__name__)

WATCH_EVERY = 15.0  # seconds between two sweeps of a team's requests by the process that leads (`watch_all`)

_RESPONSE: TypeAdapter[InteractionResponse] = TypeAdapter(InteractionResponse)


class InteractionError(Conflict):
    """Base of every interaction failure: `code` is stable, the message is for people."""

    code = "interaction-error"

    def __init__(self, message: str, interaction_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.interaction_id = interaction_id


class InteractionValidationError(Invalid, InteractionError):
    """The response does not fit the request; the interaction stays pending."""

    code = "invalid-response"


class InteractionNotPendingError(InteractionError):
    """The interaction has ended (answered, expired or cancelled): nothing can change it now."""

    code = "not-pending"


class InteractionNotFoundError(NotFound, InteractionNotPendingError):
    """No interaction has this id (so it is not pending either); its code is its family's, `not-found`."""


class Handle:
    """The waiting side of one interaction (seed `SessionInteractionHandle`)."""

    __slots__ = ("interaction_id", "_future")

    def __init__(self, interaction_id: str, future: asyncio.Future[InteractionResult]) -> None:
        self.interaction_id = interaction_id
        self._future = future

    async def result(self) -> InteractionResult:
        return await self.wait()

    def wait(self) -> asyncio.Future[InteractionResult]:
        """The result to await, shielded: one waiter giving up must not cancel the outcome for the others."""
        return asyncio.shield(self._future)

    def done(self) -> bool:
        return self._future.done()


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
        self.clock = clock
        self.modes = modes
        self.audit = audit  # every end is recorded there before anybody learns of it (`gui.core.asks.audit`)
        # (tool name, edited arguments) -> what is wrong with them (empty: they fit the tool's schema)
        self.check_edit: Callable[[str, dict[str, Any]], list[str]] | None = check_edit
        self._futures: dict[str, asyncio.Future[InteractionResult]] = {}
        # What this service stored as pending and has not ended: every end goes through `_end`, under
        # the request's lock, and the folder has one process, so these are as stored. An answer then
        # reads its request here, without waiting on the store's thread behind someone's listing.
        self._waiting: dict[str, InteractionRecord] = {}
        self._waiting_by_run: dict[str, dict[str, None]] = {}  # run id -> its ids in `_waiting`, in order
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._follow_up_timers: dict[str, asyncio.TimerHandle] = {}  # remind / escalate (`gui.core.asks.follow_ups`)
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ending: dict[str, EndCause] = {}  # run id -> what is ending it (`note_ending`)
        self.shared = False  # other processes use the same store (a team's database)
        self._watching: asyncio.Task[None] | None = None  # the leader's sweep of every request (`watch_all`)

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # --- execution side ---------------------------------------------------------------------

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> Handle:
        """Store the request, then announce it; `deadline` (epoch seconds) caps `expires_at`, as does
        its step's `expire_after`."""
        request = with_expiry(request)
        if deadline is not None:
            cap = int(deadline * 1000)
            if request.expires_at is None or cap < request.expires_at:
                request = request.model_copy(update={"expires_at": cap})
        iid = request.interaction_id
        loop = asyncio.get_running_loop()
        record = InteractionRecord(request=request)
        async with self._lock(iid):
            if await self.store.get(iid) is not None:
                raise InteractionError(f"interaction {iid} already exists", iid)
            await self.store.save(record)
            self._waiting[iid] = record
            self._waiting_by_run.setdefault(request.turn_id, {})[iid] = None
            future: asyncio.Future[InteractionResult] = loop.create_future()
            self._futures[iid] = future
            if request.expires_at is not None:
                delay = max(0.0, request.expires_at / 1000 - self.clock())
                self._timers[iid] = loop.call_later(delay, self._on_timer, iid)
            self._plan_follow_up(record)
        self._publish_created(record)
        return Handle(iid, future)

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
        async with self._lock(iid):
            if await self.store.get(iid) is not None:
                raise InteractionError(f"interaction {iid} already exists", iid)
            await self._record_decision(record)
            await self.store.save(record)
        self._locks.pop(iid, None)
        self._publish_created(record)
        self._publish_ended(record)
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
        async with self._lock(interaction_id):
            record = await self._pending_record(interaction_id)
            expires_at = record.request.expires_at
            if expires_at is not None and self.now_ms() >= expires_at:
                ended = await self._end(record, ExpiredResult(interaction_id=interaction_id))
                raise InteractionNotPendingError(ended_message(ended), interaction_id)
            if parsed.kind != record.request.kind:
                problems = [wrong_kind(record.request, parsed)]
            else:
                if self.directory is not None:  # who may answer it, and whether they already did
                    record = await self._gate(record, parsed, by)
                problems = (approval_problems(record.request, parsed) if isinstance(parsed, ApprovalResponse)
                            else response_problems(record.request, parsed))
            if not problems and isinstance(parsed, ApprovalResponse) and parsed.edited_input is not None:
                problems = self._edit_problems(record.request, parsed.edited_input)
            if problems:
                raise InteractionValidationError("; ".join(problems), interaction_id)
            if self.directory is not None and isinstance(parsed, ApprovalResponse) and parsed.decision == "approved" \
                    and required_of(record) > 1:
                record, waiting = await self._sign(record, parsed, by)
                if waiting is not None:
                    return waiting
            rule = await self._save_rule(record.request, parsed)
            result = ResolvedResult(interaction_id=interaction_id, response=parsed)
            await self._end(record, result, by)
        if rule is not None:
            await self._allow_waiting(rule, interaction_id)
        return result

    # --- several people (`gui.core.asks.approvers`, `gui.core.asks.follow_ups`) -------------------

    def _gated(self, request: InteractionRequest) -> bool:
        """On a team server, a request named people or several must approve: never allowed by one
        person's rule (neither when asked, nor by a rule made while it waits)."""
        return self.directory is not None and request.asking is not None and request.asking.gated

    async def _gate(self, record: InteractionRecord, response: InteractionResponse | None,
                    by: Answerer | None) -> InteractionRecord:
        """The request as stored now (another process may have added an approval), once `by` is
        found to be allowed to give `response`; the refusal otherwise (nothing is changed)."""
        assert self.directory is not None
        if self.shared or record.request.asking is not None:
            stored = await self.store.get(record.interaction_id)
            if stored is not None and stored.status == "pending":
                record = stored
        who = by or Answerer(via="api")
        refused = refusal(record, response, who, await self.directory.roles_of(who.person))
        if refused is not None:
            raise refused
        return record

    async def _sign(self, record: InteractionRecord, response: ApprovalResponse,
                    by: Answerer | None) -> tuple[InteractionRecord, StillWaiting | None]:
        """One more approval of a request several must approve: the record with it, and, while more
        are needed, what the person is told (the approval is stored before anyone hears of it)."""
        iid, who, required = record.interaction_id, by or Answerer(via="api"), required_of(record)
        if response.widens:
            raise InteractionValidationError(
                f"this request needs {required} different people to approve it: approve it once (a rule made "
                "by one person would let it run without the others)", iid)
        now = self.now_ms()
        approvals = (*record.approvals, Signoff(person=who.person, via=who.via, token=who.token, at=now))
        signed = record.model_copy(update={"approvals": approvals})
        if len(approvals) >= required:
            return signed, None
        await self._keep_change(signed, "approved", step_of(
            record, who, "approved", f"approval {len(approvals)} of {required}; more are needed", now))
        return signed, StillWaiting(interaction_id=iid, approvals=approvals, required=required)

    async def _keep_change(self, changed: InteractionRecord, change: str, draft: Any = None,
                           notify: tuple[str, ...] = ()) -> InteractionRecord:
        """Store a change of a pending request (its record of decisions first), then announce it.
        Caller holds the lock. Two processes changing it at once: one wins, the other is told."""
        changed = changed.model_copy(update={"revision": changed.revision + 1})
        if draft is not None and self.audit is not None:
            await self.audit.append(draft)
        try:
            await self.store.save(changed)
        except InteractionNotPendingError:
            iid = changed.interaction_id
            raise InteractionError(f"interaction {iid} was changed by someone else at the same moment: nothing "
                                   "of this was kept; look at it again", iid) from None
        if changed.interaction_id in self._waiting:
            self._waiting[changed.interaction_id] = changed
        if self.bus is not None:
            self.bus.publish(InteractionChanged, changed.request.turn_id, interaction_id=changed.interaction_id,
                             change=change, notify=notify, record=changed.model_dump(mode="json"))
        return changed

    async def hand_over(self, interaction_id: str, to: str, note: str = "",
                        by: Answerer | None = None) -> InteractionRecord:
        """`by` hands the request to `to` (`person:NAME` or `role:NAME`) with a note: they may answer
        it from now on, and are told. Recorded as a delegation. Only someone who may answer it may."""
        who = by or Answerer(via="api")
        if split_target(to) is None:
            raise InteractionValidationError(
                f"{to!r} is not someone to hand it to: write person:NAME or role:NAME", interaction_id)
        if to == f"person:{who.person}":
            raise InteractionValidationError("hand it to someone else: it is already yours to answer", interaction_id)
        async with self._lock(interaction_id):
            record = await self._pending_record(interaction_id)
            if self.directory is not None:
                record = await self._gate(record, None, who)
            now = self.now_ms()
            handed = record.model_copy(update={"handovers": (*record.handovers,
                                                             Handover(by=who.person, to=to, note=note, at=now))})
            detail = f"to {to}" + (f": {note}" if note else "")
            return await self._keep_change(handed, "handed_over", step_of(record, who, "delegated", detail, now),
                                           notify=(to,))

    async def follow_up(self, *, everywhere: bool = False) -> list[tuple[str, FollowUp]]:
        """Remind or escalate every waiting request whose time has come (by the service's clock): each
        is stored first, then announced (`InteractionChanged`, which the notifier sends on). The
        timers call it; a test moves the clock and calls it.

        `everywhere` (on a store other processes share, in the one process that leads, `watch_all`):
        every pending request in the store, not only this process's, so the follow-ups of a request
        whose asking process has gone still come; and such a request past its end is expired here. Each
        change is written over the revision it was read at, so of processes doing it at once one does."""
        done: list[tuple[str, FollowUp]] = []
        now = self.now_ms()
        records = dict(self._waiting)
        if everywhere:
            for pending in await self.store.list("pending"):
                records.setdefault(pending.interaction_id, pending)
        for iid, record in records.items():
            if iid not in self._waiting and record.request.expires_at is not None and record.request.expires_at <= now:
                await self._expire(iid)  # its asker's timer is gone with it
                continue
            if not due(record, now):
                continue
            async with self._lock(iid):
                found = self._waiting.get(iid)
                if found is None and everywhere:  # another process's: as stored now
                    found = await self.store.get(iid)
                if found is None or found.status != "pending":
                    continue
                current = found
                try:
                    for kind in due(current, now):
                        field = "reminded_at" if kind == "remind" else "escalated_at"
                        current = await self._keep_change(current.model_copy(update={field: now}),
                                                          "reminded" if kind == "remind" else "escalated",
                                                          notify=who_to_tell(current, kind))
                        done.append((iid, kind))
                except InteractionError:  # changed elsewhere meanwhile: the next look uses what is stored
                    log.info("did not remind or escalate %s: it changed meanwhile (another process did)", iid)
                    stored = await self.store.get(iid)
                    if stored is not None and stored.status == "pending" and iid in self._waiting:
                        self._waiting[iid] = current = stored
                if iid in self._waiting:
                    self._plan_follow_up(current)
        return done

    def watch_all(self, every: float = WATCH_EVERY) -> None:
        """From now on, every `every` seconds, follow up every pending request in the shared store
        (`follow_up(everywhere=True)`): called in the one process of a team that leads (`gui.pgstore.Leader`),
        so a reminder, an escalation or an expiry comes even when the process that asked has gone."""
        if self._watching is None:
            self._watching = asyncio.get_running_loop().create_task(self._watch(every))

    async def stop_watching(self) -> None:
        task, self._watching = self._watching, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _watch(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)  # the pace of the sweep, not a wait for an event
            try:
                await self.follow_up(everywhere=True)
            except Exception:  # the sweep has nobody to report to; the next one tries again
                log.exception("could not follow up the team's requests")

    def _plan_follow_up(self, record: InteractionRecord) -> None:
        """A timer for the next follow-up of `record`, if it has one."""
        iid = record.interaction_id
        old = self._follow_up_timers.pop(iid, None)
        if old is not None:
            old.cancel()
        at = next_due(record)
        if at is None:
            return
        delay = max(0.0, at / 1000 - self.clock())
        self._follow_up_timers[iid] = asyncio.get_running_loop().call_later(delay, self._on_follow_up_timer, iid)

    def _on_follow_up_timer(self, interaction_id: str) -> None:
        self._follow_up_timers.pop(interaction_id, None)
        task = asyncio.get_running_loop().create_task(self._follow_up_logged())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _follow_up_logged(self) -> None:
        try:
            await self.follow_up()
        except Exception:  # the timer has nobody to report to
            log.exception("could not remind or escalate")

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
            async with self._lock(iid):
                current = await self.store.get(iid)
                if current is None or current.status != "pending":
                    continue
                marked = current.model_copy(update={"auto": True, "rule_id": rule.rule_id, "rule_text": rule.text})
                await self._end(marked, ResolvedResult(interaction_id=iid,
                                                       response=ApprovalResponse(decision="approved")))

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        return await self.store.get(interaction_id)

    async def pending(self, run_id: str | None = None) -> list[InteractionRecord]:
        records = await self.store.list("pending")
        return [r for r in records if run_id is None or r.request.turn_id == run_id]

    # --- control side -----------------------------------------------------------------------

    def note_ending(self, run_id: str, cause: EndCause | None) -> None:
        """`run_id` is being ended by `cause` (None: forget it, the run has ended): a request of that
        run cancelled from now on records that cause, whoever cancels it (the runner, or a form handler
        whose wait was cut short)."""
        if cause is None:
            self._ending.pop(run_id, None)
        else:
            self._ending[run_id] = cause

    async def cancel(self, interaction_id: str, reason: CancelReason, cause: EndCause | None = None) -> bool:
        """Cancel one interaction; False when it had already ended. `cause` says what ended it; when
        not given, what `reason` alone tells (the app closing...), else what is ending its run
        (`note_ending`); a `turn_stopped` then becomes the reason of that cause."""
        async with self._lock(interaction_id):
            record = self._waiting.get(interaction_id) or await self.store.get(interaction_id)
            if record is None:
                raise InteractionNotFoundError(f"there is no interaction {interaction_id}", interaction_id)
            if record.status != "pending":
                return False
            try:
                await self._end(record, self._cancelled(record, reason, cause))
            except InteractionNotPendingError:  # ended meanwhile by another process sharing the store
                stored = await self.store.get(interaction_id)
                if stored is not None and interaction_id in self._waiting:
                    self._settle(stored)
                return False
        return True

    def _cancelled(self, record: InteractionRecord, reason: CancelReason, cause: EndCause | None) -> CancelledResult:
        """The end of a cancelled request: `cause` when given, else what `reason` alone tells, else what
        is ending its run (`note_ending`); a `turn_stopped` then becomes the reason of that cause."""
        cause = cause or REASON_CAUSES.get(reason) or self._ending.get(record.request.turn_id)
        if cause is not None and reason == "turn_stopped":
            reason = reason_for(cause)
        return CancelledResult(interaction_id=record.interaction_id, reason=reason, cause=cause)

    async def cancel_run(self, run_id: str, reason: CancelReason = "turn_stopped",
                         cause: EndCause | None = None) -> list[str]:
        """Cancel every pending interaction of a run; returns the ids it cancelled. A run asks through
        the service that runs it, so they are the ones this service waits for: found without reading
        every pending request (closing with thousands of runs waiting did that once per run)."""
        return [iid for iid in list(self._waiting_by_run.get(run_id, ())) if await self.cancel(iid, reason, cause)]

    async def cancel_runs(self, runs: Mapping[str, EndCause | None], reason: CancelReason = "turn_stopped") -> None:
        """`cancel_run` of many runs at once (closing with thousands waiting), each with its cause:
        their requests are stored in one write, then their tools woken and the ends announced, in order.
        A request someone is answering right now (its lock is held) goes the one-by-one way after."""
        taken: list[tuple[InteractionRecord, CancelledResult]] = []
        held: list[asyncio.Lock] = []
        busy: list[tuple[str, EndCause | None]] = []
        for run_id, given in runs.items():
            for iid in list(self._waiting_by_run.get(run_id, ())):
                lock = self._lock(iid)
                record = self._waiting.get(iid)
                if lock.locked() or record is None:
                    busy.append((iid, given))
                    continue
                await lock.acquire()  # free: taken at once, without a turn of the loop
                held.append(lock)
                taken.append((record, self._cancelled(record, reason, given)))
        try:
            ended = [self._ended(record, result) for record, result in taken]
            if self.audit is not None and ended:  # the decisions first, in one write, as `_end` does
                await self.audit.append_many([decision_of(done) for done in ended])
            try:
                await self.store.save_many(ended)
            except InteractionNotPendingError:  # another process sharing the store ended one: one by one
                busy.extend((record.interaction_id, result.cause) for record, result in taken)
                ended = []
            for done in ended:
                self._settle(done)
        finally:
            for (record, _), lock in zip(taken, held, strict=True):
                if self._locks.get(record.interaction_id) is lock:
                    del self._locks[record.interaction_id]  # safe: every holder re-reads the stored status
                lock.release()
        for iid, given in busy:
            await self.cancel(iid, reason, given)

    async def cancel_all(self, reason: CancelReason, cause: EndCause | None = None,
                         keep: frozenset[str] = frozenset()) -> None:
        """Cancel every pending request; on a store other processes share (`shared`), only the ones
        this process waits on: the others' requests are theirs. `keep`: runs that go on without this
        process (on a durable executor): their requests stay for the person to answer."""
        for record in list(self._waiting.values()) if self.shared else await self.pending():
            if record.request.turn_id not in keep:
                await self.cancel(record.interaction_id, reason, cause)
            else:  # it stays: its follow-ups and end are not planned here any more (the leader's, `watch_all`)
                for timers in (self._timers, self._follow_up_timers):
                    timer = timers.pop(record.interaction_id, None)
                    if timer is not None:
                        timer.cancel()

    async def recover(self, keep: frozenset[str] = frozenset()) -> list[str]:
        """At start-up: cancel what a dead process left pending; returns the runs it touched. `keep`:
        runs still going on (on a durable executor): their requests are still waited for."""
        runs: list[str] = []
        for record in await self.pending():
            if record.interaction_id in self._futures or record.request.turn_id in keep:
                continue  # ours, alive, or a request a run going on still waits for: not left by the dead
            if await self.cancel(record.interaction_id, "runtime_interrupted", "app_stopped"):
                if record.request.turn_id not in runs:
                    runs.append(record.request.turn_id)
        return runs

    # --- internals --------------------------------------------------------------------------

    def _lock(self, interaction_id: str) -> asyncio.Lock:
        return self._locks.setdefault(interaction_id, asyncio.Lock())

    async def _pending_record(self, interaction_id: str) -> InteractionRecord:
        record = self._waiting.get(interaction_id) or await self.store.get(interaction_id)
        if record is None:
            raise InteractionNotFoundError(f"there is no interaction {interaction_id}", interaction_id)
        if record.status != "pending":
            raise InteractionNotPendingError(ended_message(record), interaction_id)
        return record

    async def _end(self, record: InteractionRecord, result: InteractionResult,
                   by: Answerer | None = None, *, timed_out: bool = False) -> InteractionRecord:
        """Record the decision, store the final state, then wake the waiter and announce it. Caller
        holds the lock. `timed_out`: nobody answered, the request took its defaults."""
        ended = self._ended(record, result)
        await self._record_decision(ended, by, timed_out=timed_out)
        await self.store.save(ended)
        self._settle(ended)
        self._locks.pop(record.interaction_id, None)  # safe: every holder re-reads the stored status
        return ended

    def _ended(self, record: InteractionRecord, result: InteractionResult) -> InteractionRecord:
        # (approvals, hand-overs and follow-ups stay on it: the record of who did what before the end)
        return record.model_copy(update={"status": result.status, "result": result, "resolved_at": self.now_ms()})

    def _settle(self, ended: InteractionRecord) -> None:
        """Once the end is stored: forget the request, wake its waiter, announce the end."""
        iid, result = ended.interaction_id, ended.result
        self._waiting.pop(iid, None)
        of_run = self._waiting_by_run.get(ended.request.turn_id, {})
        of_run.pop(iid, None)
        if not of_run:
            self._waiting_by_run.pop(ended.request.turn_id, None)
        for timers in (self._timers, self._follow_up_timers):
            timer = timers.pop(iid, None)
            if timer is not None:
                timer.cancel()
        future = self._futures.pop(iid, None)
        if future is not None and not future.done() and result is not None:
            future.set_result(result)
        self._publish_ended(ended)

    async def changed_elsewhere(self, interaction_id: str) -> None:
        """Another process sharing the store asked or ended this request (a team's database says
        so): a request this process waits on is woken with the stored outcome; any other change is
        announced here too, so this process's pages follow."""
        async with self._lock(interaction_id):
            record = await self.store.get(interaction_id)
            if record is None:
                return
            if record.status == "pending":
                if interaction_id not in self._waiting:
                    self._publish_created(record)
                else:  # changed there while still pending (an approval of several, a hand-over): as stored now
                    self._waiting[interaction_id] = record
                return
            if interaction_id in self._waiting:
                self._settle(record)
            else:
                self._publish_ended(record)
            self._locks.pop(interaction_id, None)

    async def _record_decision(self, ended: InteractionRecord, by: Answerer | None = None, *,
                               timed_out: bool = False) -> None:
        """Append the decision to the record before it is stored: a decision that took effect is never
        missing from it (a crash in between leaves the entry, and start-up then cancels the request)."""
        if self.audit is not None:
            draft = decision_of(ended, by)
            if timed_out:
                draft = draft.model_copy(update={"by": "timeout", "person": None, "via": None, "token": None,
                                                 "detail": f"the defaults it declares: {draft.detail}"})
            await self.audit.append(draft)

    def _on_timer(self, interaction_id: str) -> None:
        self._timers.pop(interaction_id, None)
        task = asyncio.get_running_loop().create_task(self._expire(interaction_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _expire(self, interaction_id: str) -> None:
        try:
            async with self._lock(interaction_id):
                record = await self.store.get(interaction_id)
                if record is not None and record.status == "pending":
                    defaults = default_answers(record.request)
                    if defaults is None:
                        await self._end(record, ExpiredResult(interaction_id=interaction_id))
                    else:  # a question that declares its defaults takes them: decided by the timeout
                        await self._end(record, ResolvedResult(interaction_id=interaction_id, response=defaults),
                                        timed_out=True)
        except Exception:  # the timer has nobody to report to
            log.exception("could not expire interaction %s", interaction_id)

    def _publish_created(self, record: InteractionRecord) -> None:
        if self.bus is not None:
            self.bus.publish(
                InteractionCreated,
                record.request.turn_id,
                interaction_id=record.interaction_id,
                kind=record.request.kind,
                record=record.model_dump(mode="json"),
            )

    def _publish_ended(self, record: InteractionRecord) -> None:
        if self.bus is not None:
            result = record.result
            self.bus.publish(
                InteractionEnded,
                record.request.turn_id,
                interaction_id=record.interaction_id,
                status=record.status,
                reason=result.reason if isinstance(result, CancelledResult) else None,
                auto=record.auto,
                record=record.model_dump(mode="json"),
            )


_ARTICLE = {"approval": "an approval", "question": "a question", "elicitation": "an elicitation"}


def wrong_kind(request: InteractionRequest, response: InteractionResponse) -> str:
    """Why an answer of another kind than its request's cannot answer it."""
    return (f"interaction {request.interaction_id} is {_ARTICLE[request.kind]}: "
            f"{_ARTICLE[response.kind]} response does not fit it")


def ended_message(record: InteractionRecord) -> str:
    """Why a non-pending interaction cannot take an answer, for the person who tried."""
    iid = record.interaction_id
    at = ""
    if record.resolved_at is not None:
        at = time.strftime("%H:%M:%S", time.localtime(record.resolved_at / 1000))
    if record.status == "resolved":
        how = "approved automatically" if record.auto else "answered"
        return f"interaction {iid} was already {how}" + (f" at {at}" if at else "")
    if record.status == "expired":
        return f"interaction {iid} has expired" + (f" (at {at})" if at else "")
    if record.status == "cancelled":
        reason = record.result.reason if isinstance(record.result, CancelledResult) else "unknown reason"
        return f"interaction {iid} was cancelled ({reason})" + (f" at {at}" if at else "")
    return f"interaction {iid} is still pending"


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
