"""Answering several requests at once (issue 26, item 4): each answer goes through the same door and
gates as one given alone (`Operations.respond`), is recorded on its own request, and comes back with
its own outcome, so one that is refused (not yours to answer, ended meanwhile) stops none of the others.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gui.core.asks import Answered, Answerer
from gui.core.errors import Invalid, SeqDeskError

MAX_BATCH = 100  # answers in one batch


class BatchAnswer(BaseModel):
    """One answer of a batch: the request and the response, as `respond` takes them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    interaction_id: str = Field(min_length=1)
    response: dict[str, Any]


class BatchOutcome(BaseModel):
    """What became of one answer: `answered` (its end, or where an approval of several stands), or
    the refusal's `status`, stable `code` and sentence."""

    model_config = ConfigDict(frozen=True)

    interaction_id: str
    answered: Answered | None = None
    status: int | None = None
    code: str | None = None
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.answered is not None


def check_batch(answers: list[BatchAnswer]) -> None:
    """A batch is between one and MAX_BATCH answers, each to a different request."""
    if not answers:
        raise Invalid("a batch holds at least one answer")
    if len(answers) > MAX_BATCH:
        raise Invalid(f"a batch holds at most {MAX_BATCH} answers, not {len(answers)}: send them in parts")
    ids = [a.interaction_id for a in answers]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise Invalid(f"a batch answers each request once: {', '.join(twice)} appear twice")


async def answer_each(respond: Callable[[str, Any, Answerer | None], Awaitable[Answered]],
                      answers: list[BatchAnswer], by: Answerer | None) -> list[BatchOutcome]:
    """`respond` to each in order; a refusal is that answer's outcome, never the batch's."""
    check_batch(answers)
    outcomes: list[BatchOutcome] = []
    for answer in answers:
        try:
            answered = await respond(answer.interaction_id, answer.response, by)
        except SeqDeskError as exc:
            outcomes.append(BatchOutcome(interaction_id=answer.interaction_id, status=exc.status, code=exc.code,
                                         detail=str(exc)))
        else:
            outcomes.append(BatchOutcome(interaction_id=answer.interaction_id, answered=answered))
    return outcomes
