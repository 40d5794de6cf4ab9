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
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from gui.core.asks.audit import Answerer
from gui.core.asks.interactions import ApprovalResponse, InteractionRecord, InteractionResponse, InteractionResult
from gui.core.asks.signoffs import Signoff
from gui.core.errors import Conflict, Refused, SeqDeskError
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
