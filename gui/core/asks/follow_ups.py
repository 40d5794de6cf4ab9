"""What happens to a request while nobody answers it (issue 26, item 3): when its approvers are
reminded (`remind_after`), when someone else is asked as well (`escalate_after`, `escalate_to`), when it
ends (`expire_after`), and what a question takes then (the defaults it declares).

The times are pure (`due`, `next_due`, `with_expiry`); `FollowUps`, which the service holds, does what
they say on the requests it waits on (`gui.core.asks.waiting`): what ends a request when its time is up
(`on_expiry`, on the timer `Waiting.hold` sets), a timer for each one's next follow-up, and the sweep
that reminds, escalates and expires (store first, then announce). Its clock is the waiting requests',
so a test moves a clock instead of sleeping. Time never approves: an approval that expires is denied.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

from gui.core.asks.failures import InteractionError
from gui.core.asks.interactions import (
    Answer,
    ExpiredResult,
    InteractionRecord,
    InteractionRequest,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
)
from gui.core.asks.waiting import Waiting
from gui.core.sequences import Asking

log = logging.getLogger(__name__)

FollowUp = Literal["remind", "escalate"]
WATCH_EVERY = 15.0  # seconds between two sweeps of a team's requests by the process that leads (`watch_all`)


def _after_ms(text: str | None) -> int | None:
    seconds = Asking.seconds(text)
    return None if seconds is None else int(seconds * 1000)


def with_expiry(request: InteractionRequest) -> InteractionRequest:
    """`request` ending at its step's `expire_after` (counted from when it was made) when that comes
    before the end it already has."""
    asking = request.asking
    after = _after_ms(asking.expire_after) if asking is not None else None
    if after is None:
        return request
    cap = request.created_at + after
    if request.expires_at is not None and request.expires_at <= cap:
        return request
    return request.model_copy(update={"expires_at": cap})


def follow_up_times(record: InteractionRecord) -> dict[FollowUp, int]:
    """When each follow-up not done yet is due (ms since the epoch)."""
    asking, request = record.request.asking, record.request
    if asking is None:
        return {}
    times: dict[FollowUp, int] = {}
    remind = _after_ms(asking.remind_after)
    if remind is not None and record.reminded_at is None:
        times["remind"] = request.created_at + remind
    escalate = _after_ms(asking.escalate_after)
    if escalate is not None and asking.escalate_to and record.escalated_at is None:
        times["escalate"] = request.created_at + escalate
    return times


def due(record: InteractionRecord, now_ms: int) -> list[FollowUp]:
    """The follow-ups of a pending request whose time has come, in order."""
    if record.status != "pending":
        return []
    return [kind for kind, at in sorted(follow_up_times(record).items(), key=lambda item: item[1]) if at <= now_ms]


def next_due(record: InteractionRecord) -> int | None:
    """When the next follow-up of `record` is due (ms), if any."""
    times = follow_up_times(record)
    return min(times.values()) if times else None


def who_to_tell(record: InteractionRecord, kind: FollowUp) -> tuple[str, ...]:
    """Whom a follow-up is for: the approvers (and whoever it was handed to) for a reminder,
    `escalate_to` for an escalation; empty: whoever may answer (no approvers named)."""
    asking = record.request.asking
    if asking is None:
        return ()
    if kind == "escalate":
        return asking.escalate_to
    return tuple(dict.fromkeys([*asking.approvers, *(h.to for h in record.handovers)]))


def default_answers(request: InteractionRequest) -> QuestionResponse | None:
    """What a question takes when it expires: the defaults it declares, when every question that
    must be answered has one (else None: it expires unanswered)."""
    if not isinstance(request, QuestionRequest):
        return None
    if not any(q.default is not None for q in request.questions):
        return None
    if any(q.required and q.default is None for q in request.questions):
        return None
    answers = [Answer(question_id=q.question_id, value=q.default) for q in request.questions if q.default is not None]
    return QuestionResponse(answers=answers)


class FollowUps:
    """The follow-ups of the requests `waiting` holds: each one's end (`expires_at`) and next reminder or
    escalation on a timer, and the sweep (`follow_up`) those timers, a test, or the leader run."""

    def __init__(self, waiting: Waiting) -> None:
        self.waiting = waiting
        self._watching: asyncio.Task[None] | None = None  # the leader's sweep of every request (`watch_all`)

    def plan(self, record: InteractionRecord) -> None:
        """A timer for the first follow-up of the new request `record`, if it has one (its end's timer
        is set as it is held: `Waiting.hold`, with `on_expiry`)."""
        self._plan_next(record)

    def _plan_next(self, record: InteractionRecord) -> None:
        """A timer for the next follow-up of `record`, if it has one."""
        self.waiting.stop("follow_up", record.interaction_id)
        at = next_due(record)
        if at is not None:
            self.waiting.at("follow_up", record.interaction_id, at, self._on_follow_up)

    def on_expiry(self, interaction_id: str) -> None:
        """The request's end came (its timer, set by `Waiting.hold`): `expire` it."""
        self.waiting.fired("expiry", interaction_id)
        self.waiting.spawn(self.expire(interaction_id))

    async def expire(self, interaction_id: str) -> None:
        """End the request if it is still pending: expired, or (a question that declares its defaults)
        answered with them, decided by the timeout."""
        waiting = self.waiting
        try:
            async with waiting.lock(interaction_id):
                record = await waiting.store.get(interaction_id)
                if record is not None and record.status == "pending":
                    defaults = default_answers(record.request)
                    if defaults is None:
                        await waiting.end(record, ExpiredResult(interaction_id=interaction_id))
                    else:
                        await waiting.end(record, ResolvedResult(interaction_id=interaction_id, response=defaults),
                                          timed_out=True)
        except Exception:  # the timer has nobody to report to
            log.exception("could not expire interaction %s", interaction_id)

    def _on_follow_up(self, interaction_id: str) -> None:
        self.waiting.fired("follow_up", interaction_id)
        self.waiting.spawn(self._follow_up_logged())

    async def _follow_up_logged(self) -> None:
        try:
            await self.follow_up()
        except Exception:  # the timer has nobody to report to
            log.exception("could not remind or escalate")

    async def follow_up(self, *, everywhere: bool = False) -> list[tuple[str, FollowUp]]:
        """Remind or escalate every waiting request whose time has come (by the waiting requests'
        clock): each is stored first, then announced (`InteractionChanged`, which the notifier sends
        on). The timers call it; a test moves the clock and calls it.

        `everywhere` (on a store other processes share, in the one process that leads, `watch_all`):
        every pending request in the store, not only this process's, so the follow-ups of a request
        whose asking process has gone still come; and such a request past its end is expired here. Each
        change is written over the revision it was read at, so of processes doing it at once one does."""
        waiting = self.waiting
        done: list[tuple[str, FollowUp]] = []
        now = waiting.now_ms()
        records = {record.interaction_id: record for record in waiting.records()}
        if everywhere:
            for pending in await waiting.store.list("pending"):
                records.setdefault(pending.interaction_id, pending)
        for iid, record in records.items():
            if iid not in waiting and record.request.expires_at is not None and record.request.expires_at <= now:
                await self.expire(iid)  # its asker's timer is gone with it
                continue
            if not due(record, now):
                continue
            async with waiting.lock(iid):
                found = waiting.get(iid)
                if found is None and everywhere:  # another process's: as stored now
                    found = await waiting.store.get(iid)
                if found is None or found.status != "pending":
                    continue
                current = found
                try:
                    for kind in due(current, now):
                        field = "reminded_at" if kind == "remind" else "escalated_at"
                        current = await waiting.change(current.model_copy(update={field: now}),
                                                       "reminded" if kind == "remind" else "escalated",
                                                       notify=who_to_tell(current, kind))
                        done.append((iid, kind))
                except InteractionError:  # changed elsewhere meanwhile: the next look uses what is stored
                    log.info("did not remind or escalate %s: it changed meanwhile (another process did)", iid)
                    stored = await waiting.store.get(iid)
                    if stored is not None and stored.status == "pending" and iid in waiting:
                        waiting.update(current := stored)
                if iid in waiting:
                    self._plan_next(current)
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
