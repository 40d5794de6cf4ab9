"""Who may answer a request, how many must approve it, and whose inbox it belongs in (issue 26, items 2-4).

A request carries its step's answering rules (`InteractionRequest.asking`, `gui.core.sequences.asking`)
and the person who started its run (`started_by`). On a team server (a `Directory` says who holds
which role) these decide:

- **who may answer**: the people and roles in `approvers`, plus whoever it was handed to
  (`Handover`) and, once escalated, `escalate_to`; with no `approvers`, anyone who may answer at all;
- **no self-approval**: the person who started the run may deny its step but not approve it, unless
  the step says `self_approve`;
- **how many**: an approval resolves once `required` distinct people approved (`Signoff`s on the
  record); the same person twice is refused, and a token counts as its owner (`Answerer.person`).

On the desktop there is no directory: one person answers everything, once, as always (`gate` is
never asked). A refusal changes nothing and says why in a sentence (`NotAnApprover`, 403;
`AlreadyApproved`, 409).

The rules are pure; `Approvers`, which the service holds, applies them to the requests it waits on
(`gui.core.asks.waiting`): the gate, one more approval of several, and a hand-over.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from gui.core.asks.audit import Answerer, step_of
from gui.core.asks.failures import InteractionValidationError
from gui.core.asks.interactions import (
    ApprovalResponse,
    InteractionRecord,
    InteractionResponse,
    InteractionResult,
)
from gui.core.asks.signoffs import Handover, Signoff
from gui.core.asks.waiting import Waiting
from gui.core.errors import Conflict, Refused, SeqDeskError
from gui.core.people import Directory
from gui.core.sequences import Asking, split_target

InboxView = Literal["needs_you", "waiting", "started_by_you"]
INBOX_VIEWS: tuple[InboxView, ...] = ("needs_you", "waiting", "started_by_you")


class NotAnApprover(Refused):
    """This person may not give this answer (not among the approvers, or approving their own run's step)."""

    code = "not-an-approver"

    def __init__(self, message: str, interaction_id: str | None = None) -> None:
        super().__init__(message)
        self.message, self.interaction_id = message, interaction_id


class AlreadyApproved(Conflict):
    """This person (or a token of theirs) already approved this request: another approval must come
    from someone else."""

    code = "already-approved"

    def __init__(self, message: str, interaction_id: str | None = None) -> None:
        super().__init__(message)
        self.message, self.interaction_id = message, interaction_id


_APPROVE = ApprovalResponse(decision="approved")
_DENY = ApprovalResponse(decision="denied")


class StillWaiting(BaseModel):
    """What an approval of a request that needs several people answers while more are needed: the
    approvals given so far (this one last) and how many are required. The request stays pending."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Literal["pending"] = "pending"
    interaction_id: str
    approvals: tuple[Signoff, ...]
    required: int


# What answering a request gives: its end, or (an approval that needs more people) where it stands.
Answered = InteractionResult | StillWaiting


def asking_of(record: InteractionRecord) -> Asking:
    return record.request.asking or Asking()


def required_of(record: InteractionRecord) -> int:
    """How many distinct people must approve it (1 unless its step says more)."""
    return asking_of(record).required


def answerers(record: InteractionRecord, now_ms: int | None = None) -> tuple[str, ...]:
    """The targets (`person:NAME`, `role:NAME`) who may answer it now; empty: anyone may."""
    asking = asking_of(record)
    if not asking.approvers:
        return ()
    targets = [*asking.approvers, *(h.to for h in record.handovers)]
    if record.escalated_at is not None:
        targets += asking.escalate_to
    return tuple(dict.fromkeys(targets))


def matches(target: str, person: str, roles: frozenset[str]) -> bool:
    found = split_target(target)
    if found is None:
        return False
    kind, name = found
    return name == person if kind == "person" else name in roles


def refusal(record: InteractionRecord, response: InteractionResponse | None, by: Answerer,
            roles: frozenset[str]) -> SeqDeskError | None:
    """Why `by` (holding `roles`) may not give `response` to the pending `record` (None: may not act on
    it at all, as for a hand-over); None when they may."""
    iid, person = record.interaction_id, by.person
    targets = answerers(record)
    if targets and not any(matches(target, person, roles) for target in targets):
        return NotAnApprover(f"{person} is not among the approvers of this request ({', '.join(targets)}): "
                             "nothing was changed", iid)
    approving = isinstance(response, ApprovalResponse) and response.decision == "approved"
    if not approving:  # a deny, an answer, a hand-over: any approver may
        return None
    if record.request.started_by == person and not asking_of(record).self_approve:
        return NotAnApprover(f"{person} started this run, so someone else must approve its step "
                             "(the step does not allow self_approve): nothing was changed", iid)
    if any(given.person == person for given in record.approvals):
        return AlreadyApproved(f"{person} already approved this request: {required_of(record)} different people "
                               "must approve it, so the next approval must come from someone else", iid)
    return None


def view_of(record: InteractionRecord, person: str, roles: frozenset[str]) -> InboxView:
    """Where a pending request sits in `person`'s inbox: "needs_you" when they may approve or answer
    it now, else "waiting" (on others, or on more approvals than theirs)."""
    answer = _APPROVE if record.request.kind == "approval" else None
    return "waiting" if refusal(record, answer, Answerer(person=person, via="app"), roles) else "needs_you"


def deny_only(record: InteractionRecord, person: str, roles: frozenset[str]) -> SeqDeskError | None:
    """Why `person` may deny the pending approval `record` but not approve it (they started its run, or
    already approved one of several); None when they may approve it too, or may not answer it at all."""
    if record.status != "pending" or record.request.kind != "approval":
        return None
    by = Answerer(person=person, via="app")
    if refusal(record, _DENY, by, roles) is not None:
        return None
    return refusal(record, _APPROVE, by, roles)


def in_view(record: InteractionRecord, view: InboxView, person: str, roles: frozenset[str]) -> bool:
    if view == "started_by_you":
        return record.request.started_by == person
    return view_of(record, person, roles) == view


class Approvers:
    """Who answers the requests `waiting` holds, on a team server (`directory`; None, the desktop: one
    person answers, once): the gate before an answer, the approvals of several, and hand-overs."""

    def __init__(self, waiting: Waiting, directory: Directory | None) -> None:
        self.waiting, self.directory = waiting, directory

    async def gate(self, record: InteractionRecord, response: InteractionResponse | None,
                   by: Answerer | None) -> InteractionRecord:
        """The request as stored now (another process may have added an approval), once `by` is
        found to be allowed to give `response`; the refusal otherwise (nothing is changed). On the
        desktop (no directory) anyone may: `record` as it is."""
        if self.directory is None:
            return record
        if self.waiting.shared or record.request.asking is not None:
            stored = await self.waiting.store.get(record.interaction_id)
            if stored is not None and stored.status == "pending":
                record = stored
        who = by or Answerer(via="api")
        refused = refusal(record, response, who, await self.directory.roles_of(who.person))
        if refused is not None:
            raise refused
        return record

    async def sign(self, record: InteractionRecord, response: ApprovalResponse,
                   by: Answerer | None) -> tuple[InteractionRecord, StillWaiting | None]:
        """One more approval of a request several must approve: the record with it, and, while more
        are needed, what the person is told (the approval is stored before anyone hears of it).
        Caller holds the lock."""
        iid, who, required = record.interaction_id, by or Answerer(via="api"), required_of(record)
        if response.widens:
            raise InteractionValidationError(
                f"this request needs {required} different people to approve it: approve it once (a rule made "
                "by one person would let it run without the others)", iid)
        now = self.waiting.now_ms()
        approvals = (*record.approvals, Signoff(person=who.person, via=who.via, token=who.token, at=now))
        signed = record.model_copy(update={"approvals": approvals})
        if len(approvals) >= required:
            return signed, None
        await self.waiting.change(signed, "approved", step_of(
            record, who, "approved", f"approval {len(approvals)} of {required}; more are needed", now))
        return signed, StillWaiting(interaction_id=iid, approvals=approvals, required=required)

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
        async with self.waiting.lock(interaction_id):
            record = await self.gate(await self.waiting.pending(interaction_id), None, who)
            now = self.waiting.now_ms()
            handed = record.model_copy(update={"handovers": (*record.handovers,
                                                             Handover(by=who.person, to=to, note=note, at=now))})
            detail = f"to {to}" + (f": {note}" if note else "")
            return await self.waiting.change(handed, "handed_over", step_of(record, who, "delegated", detail, now),
                                             notify=(to,))
