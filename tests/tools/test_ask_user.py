"""ask_user through a fake interaction port: the request it sends and each way a question can end."""

from __future__ import annotations

import pytest

from gui.core.asks.interactions import (
    Answer,
    ApprovalResponse,
    CancelledResult,
    ExpiredResult,
    InteractionRequest,
    InteractionResult,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
)
from gui.core.errors import ToolArgumentError, ToolError
from gui.core.tools.registry import ToolContext
from gui.tools.ask_user import AskUser


class FakeHandle:
    def __init__(self, interaction_id: str, result: InteractionResult) -> None:
        self.interaction_id = interaction_id
        self._result = result

    async def result(self) -> InteractionResult:
        return self._result


class FakePort:
    """Records each request and answers it with what `answer(request)` returns."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.requests: list[InteractionRequest] = []

    async def request(self, request: InteractionRequest) -> FakeHandle:
        self.requests.append(request)
        return FakeHandle(request.interaction_id, self.answer(request))


def answered(*answers: tuple[str, str | list[str]]):
    def answer(request: InteractionRequest) -> InteractionResult:
        response = QuestionResponse(answers=[Answer(question_id=q, value=v) for q, v in answers])
        return ResolvedResult(interaction_id=request.interaction_id, response=response)

    return answer


ARGS = {
    "title": "Deploy",
    "questions": [
        {"id": "env", "prompt": "Where to?", "type": "single_select",
         "options": [{"value": "prod", "label": "Production", "description": "careful"},
                     {"value": "test", "label": "Test"}]},
        {"id": "note", "prompt": "Anything to add?"},
        {"id": "checks", "prompt": "Which checks?", "type": "multi_select",
         "options": [{"value": "lint", "label": "Lint"}, {"value": "unit", "label": "Unit tests"}]},
    ],
}  # fmt: skip


def context(port: FakePort | None, deadline: float | None = None) -> ToolContext:
    return ToolContext(
        run_id="run-7",
        tool_call_id="call-3",
        tool_name="ask_user",
        sequence_name="release",
        group_name="confirm",
        interactions=port,
        deadline=deadline,
    )


async def test_answers_are_the_result_by_question_id():
    port = FakePort(answered(("env", "prod"), ("note", "go"), ("checks", ["lint", "unit"])))
    result = await AskUser().call(ARGS, context(port))
    assert result == {"env": "prod", "note": "go", "checks": ["lint", "unit"]}


async def test_unanswered_questions_are_null():
    port = FakePort(answered(("env", "test")))
    assert await AskUser().call(ARGS, context(port)) == {"env": "test", "note": None, "checks": None}


async def test_request_carries_run_source_places_and_questions():
    port = FakePort(answered())
    await AskUser().call(ARGS, context(port, deadline=1_700_000_000.5))
    [request] = port.requests
    assert isinstance(request, QuestionRequest)
    assert len(request.interaction_id) == 32
    assert request.turn_id == "run-7"
    assert (request.source.tool_call_id, request.source.tool_name) == ("call-3", "ask_user")
    assert request.expires_at == 1_700_000_000_500
    assert request.created_at > 1_600_000_000_000
    assert (request.sequence_name, request.group_name) == ("release", "confirm")
    assert request.title == "Deploy"
    env, note, checks = request.questions
    assert (env.question_id, env.prompt, env.response_type) == ("env", "Where to?", "single_select")
    assert [(o.value, o.label, o.description) for o in env.options] == [
        ("prod", "Production", "careful"),
        ("test", "Test", None),
    ]
    assert (note.response_type, note.options) == ("text", None)
    assert checks.response_type == "multi_select"


async def test_each_call_is_a_new_interaction_and_without_deadline_never_expires():
    port = FakePort(answered())
    await AskUser().call(ARGS, context(port))
    await AskUser().call(ARGS, context(port))
    first, second = port.requests
    assert first.interaction_id != second.interaction_id
    assert first.expires_at is None


async def test_expired_question_is_an_error():
    port = FakePort(lambda r: ExpiredResult(interaction_id=r.interaction_id))
    with pytest.raises(ToolError, match="^nobody answered before the request expired$"):
        await AskUser().call(ARGS, context(port))


async def test_cancelled_question_is_an_error_with_the_reason():
    port = FakePort(lambda r: CancelledResult(interaction_id=r.interaction_id, reason="turn_stopped"))
    with pytest.raises(ToolError, match=r"^the question was cancelled \(the run was stopped\)$"):
        await AskUser().call(ARGS, context(port))


async def test_an_answer_of_another_kind_is_an_error():
    port = FakePort(
        lambda r: ResolvedResult(interaction_id=r.interaction_id, response=ApprovalResponse(decision="approved"))
    )
    with pytest.raises(ToolError):
        await AskUser().call(ARGS, context(port))


async def test_without_anyone_to_ask_it_fails():
    with pytest.raises(ToolError, match="^no one can be asked here$"):
        await AskUser().call(ARGS, context(None))


def test_tool_needs_no_approval_and_runs_in_parallel():
    tool = AskUser()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("ask_user", "none", True)


def question(**overrides):
    return {"id": "q", "prompt": "Why?", **overrides}


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"questions": [question()]}, "title"),
        ({"title": "", "questions": [question()]}, "title"),
        ({"title": "T"}, "questions"),
        ({"title": "T", "questions": []}, "questions"),
        ({"title": "T", "questions": [question(), question()]}, "questions"),
        ({"title": "T", "questions": [question(), question(id="r", type="single_select")]}, "questions.1"),
        ({"title": "T", "questions": [question(type="multi_select", options=[])]}, "questions.0"),
        ({"title": "T", "questions": [question(options=[{"value": "a", "label": "A"}])]}, "questions.0"),
        ({"title": "T", "questions": [question(type="dropdown")]}, "questions.0.type"),
        ({"title": "T", "questions": [question(type="single_select", options=[{"value": "a"}])]},
         "questions.0.options.0.label"),
        ({"title": "T", "questions": [question(type="single_select",
          options=[{"value": "a", "label": "A"}, {"value": "a", "label": "B"}])]}, "questions.0"),
        ({"title": "T", "questions": [question(prompt="")]}, "questions.0.prompt"),
        ({"title": "T", "questions": [question()], "timeout": 5}, "timeout"),
    ],
)  # fmt: skip
async def test_bad_arguments_name_the_field(args, field):
    with pytest.raises(ToolArgumentError) as err:
        await AskUser().call(args, context(FakePort(answered())))
    assert field in [path for path, _ in err.value.problems]


async def test_choices_can_be_plain_labels_or_labels_alone_and_the_value_is_the_label():
    args = {"title": "Pick", "questions": [
        {"id": "a", "prompt": "Which?", "type": "single_select", "options": ["alpha", "beta"]},
        {"id": "b", "prompt": "And?", "type": "multi_select",
         "options": [{"label": "gamma"}, {"label": "Delta", "value": "d"}]}]}
    port = FakePort(answered(("a", "beta"), ("b", ["gamma", "d"])))
    assert await AskUser().call(args, context(port)) == {"a": "beta", "b": ["gamma", "d"]}
    first, second = port.requests[0].questions
    assert [(o.value, o.label) for o in first.options] == [("alpha", "alpha"), ("beta", "beta")]
    assert [(o.value, o.label) for o in second.options] == [("gamma", "gamma"), ("d", "Delta")]


async def test_an_optional_question_is_marked_so_and_a_skipped_one_is_null():
    args = {"title": "T", "questions": [question(), question(id="extra", required=False)]}
    port = FakePort(answered(("q", "because")))
    assert await AskUser().call(args, context(port)) == {"q": "because", "extra": None}
    assert [q.required for q in port.requests[0].questions] == [True, False]


async def test_a_declined_request_fails_the_tool_as_declined_not_as_a_crash():
    from gui.core.tools.registry import ToolDeclined

    def decline(request):
        return ResolvedResult(interaction_id=request.interaction_id, response=QuestionResponse(decision="declined"))

    with pytest.raises(ToolDeclined, match="^declined by the user"):
        await AskUser().call(ARGS, context(FakePort(decline)))


async def test_an_expired_question_is_declined_too_so_it_is_never_retried():
    from gui.core.tools.registry import ToolDeclined

    with pytest.raises(ToolDeclined):
        await AskUser().call(ARGS, context(FakePort(lambda r: ExpiredResult(interaction_id=r.interaction_id))))


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (["alpha", ""], "questions.0.options.1.label"),
        ([{"value": "x"}], "questions.0.options.0.label"),
        (["alpha", {"label": "Alpha", "value": "alpha"}], "questions.0"),
        ([5], "questions.0.options.0"),
    ],
)  # fmt: skip
async def test_bad_plain_choices_name_their_field(options, field):
    args = {"title": "T", "questions": [question(type="single_select", options=options)]}
    with pytest.raises(ToolArgumentError) as err:
        await AskUser().call(args, context(FakePort(answered())))
    assert field in [path for path, _ in err.value.problems], err.value.problems
