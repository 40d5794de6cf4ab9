"""`ask_user`: ask the person one or more questions; their answers are the tool's result.

The question goes through the interaction port like every other request for a person, so it is
stored before anyone sees it, shows up in the inbox, expires with the group's deadline and is
cancelled when the run stops. A question can be optional (`"required": false`: the person may skip
it, its answer is null); choices can be plain labels (`["alpha", "beta"]`: the value is the label).
The person may decline the whole request: the tool then fails as declined (like a denied approval,
never retried), and so it does when nobody answered in time. Questions are checked when the
arguments are (a choice question without choices, two questions with one id), so a broken form
never reaches a person.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from gui.core.errors import ToolError
from gui.core.sequences import SlotType
from gui.core.tools import ModelTool, ToolContext, ToolDeclined
from gui.i18n import N_
from gui.tools._args import ToolArgs, invalid, parse_args

if TYPE_CHECKING:  # the requests are made when the tool runs: checking a file (`seqdesk check`) loads no inbox
    from gui.core.asks import QuestionRequest


class ChoiceArgs(ToolArgs):
    """One choice the person can pick. A plain label (`"alpha"`) is a choice too."""

    model_config = ConfigDict(title=N_("Choice"))

    label: str = Field(min_length=1, title=N_("Label"), description=N_("What the person sees."))
    value: str | None = Field(
        default=None,
        min_length=1,
        title=N_("Value"),
        description=N_("What the answer contains when this choice is picked; the label when left out."),
    )
    description: str | None = Field(
        default=None, title=N_("Explanation"), description=N_("Optional extra words shown under the label.")
    )

    @property
    def answer(self) -> str:
        return self.value if self.value is not None else self.label


class QuestionArgs(ToolArgs):
    """One question to the person."""

    model_config = ConfigDict(title=N_("Question"))

    prompt: str = Field(min_length=1, title=N_("Question"), description=N_("The question as the person reads it."))
    id: str = Field(
        min_length=1,
        title=N_("Answer name"),
        description=N_("A short name for this answer, unique in the list, for example 'environment'. "
        "The result holds each answer under its name."),
    )
    type: Literal["text", "single_select", "multi_select"] = Field(
        default="text",
        title=N_("Kind of answer"),
        description=N_("The person types an answer (text), picks one choice (single_select) "
        "or picks any number of choices (multi_select)."),
    )
    options: list[ChoiceArgs] | None = Field(
        default=None,
        title=N_("Choices"),
        description=N_("The choices to pick from, needed when the person picks: each a label, "
        "or a label with a value and an explanation."),
    )
    required: bool = Field(
        default=True,
        title=N_("Must be answered"),
        description=N_("Off: the person may skip this question, and its answer is then empty."),
    )
    default: str | list[str] | None = Field(
        default=None,
        title=N_("Answer if nobody answers"),
        description=N_("Taken when the question expires unanswered (the step's expire_after): "
                       "a text, a choice's value, or several for multi_select."),
    )

    @field_validator("options", mode="before")
    @classmethod
    def _labels_are_choices(cls, options: Any) -> Any:
        if isinstance(options, list):
            return [{"label": o} if isinstance(o, str) else o for o in options]
        return options

    @model_validator(mode="after")
    def _choices_fit_the_kind(self) -> QuestionArgs:
        if self.type == "text":
            if self.options:
                raise invalid(N_("a text question takes no choices; use single_select or multi_select"))
            return self
        if not self.options:
            raise invalid(f"a {self.type} question needs at least one choice")
        values = [o.answer for o in self.options]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise invalid(f"two choices have the same value: {', '.join(twice)}")
        return self


class AskUserArgs(ToolArgs):
    """Ask the person questions."""

    model_config = ConfigDict(title=N_("Ask questions"))

    title: str = Field(min_length=1, title=N_("Title"),
                       description=N_("What the questions are about, shown above them."))
    questions: list[QuestionArgs] = Field(min_length=1, title=N_("Questions"),
                                          description=N_("One or more questions to ask."))

    @field_validator("questions")
    @classmethod
    def _unique_ids(cls, questions: list[QuestionArgs]) -> list[QuestionArgs]:
        seen: set[str] = set()
        for q in questions:
            if q.id in seen:
                raise invalid(f"two questions have the answer name '{q.id}'")
            seen.add(q.id)
        return questions


class AskUser(ModelTool):
    name = "ask_user"
    description = N_(
        "Asks you one or more questions and waits for your answers; "
        "the answers are what this step gives to the next ones."
    )
    concurrency_safe = True
    approval = "none"
    Args = AskUserArgs

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.OBJECT

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        from gui.core.asks import (
            CANCEL_WORDS,
            DECLINED_REASON,
            UNANSWERED_REASON,
            CancelledResult,
            ExpiredResult,
            QuestionResponse,
            ResolvedResult,
            cancel_cause,
        )
        from gui.core.causes import CAUSES

        a = parse_args(self, AskUserArgs, args)
        if ctx.interactions is None:
            raise ToolError(N_("no one can be asked here"))
        handle = await ctx.interactions.request(question_request(a, ctx))
        result = await handle.result()
        if isinstance(result, ExpiredResult):
            raise ToolDeclined(UNANSWERED_REASON, cause="expired")
        if isinstance(result, CancelledResult):
            cause = cancel_cause(result)
            words = CAUSES[cause].why if cause is not None else CANCEL_WORDS.get(result.reason, result.reason)
            raise ToolDeclined(f"the question was cancelled ({words})", cause=cause)
        if not isinstance(result, ResolvedResult) or not isinstance(result.response, QuestionResponse):
            raise ToolError(N_("the answer to the question is not an answer to questions"))
        if result.response.declined:
            raise ToolDeclined(DECLINED_REASON)
        answers: dict[str, Any] = {q.id: None for q in a.questions}  # skipped questions stay empty (null)
        answers.update({x.question_id: x.value for x in result.response.answers if x.question_id in answers})
        return answers


def question_request(a: AskUserArgs, ctx: ToolContext) -> QuestionRequest:
    from gui.core.asks import Question, QuestionOption, QuestionRequest, ToolSource

    return QuestionRequest(
        interaction_id=uuid.uuid4().hex,
        turn_id=ctx.run_id,
        source=ToolSource(tool_call_id=ctx.tool_call_id, tool_name=ctx.tool_name),
        created_at=int(time.time() * 1000),
        expires_at=int(ctx.deadline * 1000) if ctx.deadline is not None else None,
        sequence_name=ctx.sequence_name,
        group_name=ctx.group_name,
        title=a.title,
        questions=[
            Question(
                question_id=q.id,
                prompt=q.prompt,
                response_type=q.type,
                options=[QuestionOption(value=o.answer, label=o.label, description=o.description) for o in q.options]
                if q.options
                else None,
                required=q.required,
                default=q.default,
            )
            for q in a.questions
        ],
    )
