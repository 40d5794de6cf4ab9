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

from gui.core.asks.approvals import ApprovalModes, ApprovalOutcome, allowing_rule, approval_outcome
from gui.core.asks.audit import Answerer, AuditLog, decision_of
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
)
from gui.core.asks.responses import response_problems
from gui.core.asks.rules import ApprovalRule, rule_for
from gui.core.asks.store import InteractionStore, tool_name_of
from gui.core.causes import REASON_CAUSES, CancelReason, EndCause, reason_for
from gui.core.errors import Conflict, Invalid, NotFound
from gui.core.events import EventBus, InteractionCreated, InteractionEnded

log = logging.getLogger(__name__)

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
    ) -> None:
        self.store = store
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
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ending: dict[str, EndCause] = {}  # run id -> what is ending it (`note_ending`)
        self.shared = False  # other processes use the same store (a team's database)

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # --- execution side ---------------------------------------------------------------------

    async def request(self, request: InteractionRequest, *, deadline: float | None = None) -> Handle:
        """Store the request, then announce it; `deadline` (epoch seconds) caps `expires_at`."""
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
        rule = allowing_rule(self.modes, request, tool_name)
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
    ) -> InteractionResult:
        """Validate the answer, store it, then wake the waiting tool and announce the end; `by` is who
        answered, for the record of decisions."""
        parsed = _parse_response(interaction_id, response)
        async with self._lock(interaction_id):
            record = await self._pending_record(interaction_id)
            expires_at = record.request.expires_at
            if expires_at is not None and self.now_ms() >= expires_at:
                ended = await self._end(record, ExpiredResult(interaction_id=interaction_id))
                raise InteractionNotPendingError(ended_message(ended), interaction_id)
            problems = response_problems(record.request, parsed)
            if not problems and isinstance(parsed, ApprovalResponse) and parsed.edited_input is not None:
                problems = self._edit_problems(record.request, parsed.edited_input)
            if problems:
                raise InteractionValidationError("; ".join(problems), interaction_id)
            rule = await self._save_rule(record.request, parsed)
            result = ResolvedResult(interaction_id=interaction_id, response=parsed)
            await self._end(record, result, by)
        if rule is not None:
            await self._allow_waiting(rule, interaction_id)
        return result

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
            if iid == answered or not rule.matches(waiting.request):
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
                   by: Answerer | None = None) -> InteractionRecord:
        """Record the decision, store the final state, then wake the waiter and announce it. Caller
        holds the lock."""
        ended = self._ended(record, result)
        await self._record_decision(ended, by)
        await self.store.save(ended)
        self._settle(ended)
        self._locks.pop(record.interaction_id, None)  # safe: every holder re-reads the stored status
        return ended

    def _ended(self, record: InteractionRecord, result: InteractionResult) -> InteractionRecord:
        return InteractionRecord(
            request=record.request,
            status=result.status,
            result=result,
            resolved_at=self.now_ms(),
            auto=record.auto,
            rule_id=record.rule_id,
            rule_text=record.rule_text,
        )

    def _settle(self, ended: InteractionRecord) -> None:
        """Once the end is stored: forget the request, wake its waiter, announce the end."""
        iid, result = ended.interaction_id, ended.result
        self._waiting.pop(iid, None)
        of_run = self._waiting_by_run.get(ended.request.turn_id, {})
        of_run.pop(iid, None)
        if not of_run:
            self._waiting_by_run.pop(ended.request.turn_id, None)
        timer = self._timers.pop(iid, None)
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
                return
            if interaction_id in self._waiting:
                self._settle(record)
            else:
                self._publish_ended(record)
            self._locks.pop(interaction_id, None)

    async def _record_decision(self, ended: InteractionRecord, by: Answerer | None = None) -> None:
        """Append the decision to the record before it is stored: a decision that took effect is never
        missing from it (a crash in between leaves the entry, and start-up then cancels the request)."""
        if self.audit is not None:
            await self.audit.append(decision_of(ended, by))

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
                    await self._end(record, ExpiredResult(interaction_id=interaction_id))
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
