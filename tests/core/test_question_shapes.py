"""Questions as people need them: optional ones, choices written as plain labels, and a decline of
the whole request, each checked by the core with a clear message saying where."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from support.interactions import now_ms
from support.waiting import within

from gui.core.asks import InteractionService, InteractionValidationError
from gui.core.asks.interactions import (
    Answer,
    ExecutionSource,
    Question,
    QuestionOption,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
)
from gui.memory import MemoryApprovalModes, MemoryInteractionStore


def request(*questions: Question) -> QuestionRequest:
    return QuestionRequest(interaction_id="q1", turn_id="run-1", source=ExecutionSource(), created_at=now_ms(),
                           title="Deploy", questions=list(questions))


NOTE = Question(question_id="note", prompt="Why?", response_type="text")
EXTRA = Question(question_id="extra", prompt="Anything else?", response_type="text", required=False)


@pytest.fixture
def service() -> InteractionService:
    return InteractionService(MemoryInteractionStore(), modes=MemoryApprovalModes())


def test_a_choice_given_as_a_label_alone_has_the_label_as_its_value():
    question = Question.model_validate({"question_id": "env", "prompt": "Where?", "response_type": "single_select",
                                        "options": ["alpha", {"label": "beta"}, {"label": "Gamma", "value": "g"}]})
    assert [(o.value, o.label) for o in question.options or []] == [("alpha", "alpha"), ("beta", "beta"),
                                                                    ("g", "Gamma")]
    assert question.required is True
    assert QuestionOption.model_validate("x") == QuestionOption(value="x", label="x")


@pytest.mark.parametrize(("data", "says", "where"), [
    ({"response_type": "single_select", "options": []}, "needs at least one choice", ()),
    ({"response_type": "single_select"}, "needs at least one choice", ()),
    ({"response_type": "text", "options": ["a"]}, "a text question takes no choices", ()),
    ({"response_type": "multi_select", "options": ["a", {"label": "A", "value": "a"}]}, "same value: a", ()),
    ({"response_type": "single_select", "options": ["a", ""]}, "at least 1 character", ("options", 1)),
    ({"response_type": "single_select", "options": [{"value": "x"}]}, "label", ("options", 0, "label")),
])
def test_bad_question_shapes_are_refused_at_their_field(data, says, where):
    with pytest.raises(ValidationError) as caught:
        Question.model_validate({"question_id": "q", "prompt": "?", **data})
    errors = caught.value.errors()
    assert any((says in e["msg"] or says in str(e["loc"])) and tuple(e["loc"][:len(where)]) == where
               for e in errors), errors


def test_two_questions_with_one_id_are_refused():
    with pytest.raises(ValidationError, match="two questions have the id: note"):
        request(NOTE, NOTE)


async def test_an_optional_question_may_be_left_out_but_a_required_one_may_not(service):
    handle = await service.request(request(NOTE, EXTRA))
    with pytest.raises(InteractionValidationError, match="question 'note' has no answer"):
        await service.respond("q1", QuestionResponse(answers=[Answer(question_id="extra", value="x")]))
    result = await service.respond("q1", QuestionResponse(answers=[Answer(question_id="note", value="ok")]))
    assert isinstance(result, ResolvedResult) and await within(handle.result(), "the question's outcome") == result


async def test_a_decline_over_the_wire_ends_the_request_and_the_tool_hears_it(service):
    handle = await service.request(request(NOTE))
    result = await service.respond("q1", {"kind": "question", "decision": "declined"})
    assert isinstance(result, ResolvedResult)
    response = (await within(handle.result(), "the question's outcome")).response
    assert isinstance(response, QuestionResponse) and response.declined and response.answers == []
    assert (await service.get("q1")).status == "resolved"


async def test_a_decline_carrying_answers_is_refused_and_the_request_stays_pending(service):
    await service.request(request(NOTE))
    with pytest.raises(InteractionValidationError, match="a decline carries no answers, got answers to: note"):
        await service.respond("q1", {"kind": "question", "decision": "declined",
                                     "answers": [{"question_id": "note", "value": "x"}]})
    with pytest.raises(InteractionValidationError, match="decision"):
        await service.respond("q1", {"kind": "question", "decision": "maybe"})
    assert (await service.get("q1")).status == "pending"
