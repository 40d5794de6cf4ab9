"""What happens to a request while nobody answers it (issue 26, item 3): when its approvers are
reminded (`remind_after`), when someone else is asked as well (`escalate_after`, `escalate_to`), when it
ends (`expire_after`), and what a question takes then (the defaults it declares).

Pure: the service asks `due` with its clock and does what it says (store first, then announce), so a
test moves a clock instead of sleeping. Time never approves: an approval that expires is denied.
"""

from __future__ import annotations

from typing import Literal

from gui.core.asks.interactions import Answer, InteractionRecord, InteractionRequest, QuestionRequest, QuestionResponse
from gui.core.sequences import Asking

FollowUp = Literal["remind", "escalate"]


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
