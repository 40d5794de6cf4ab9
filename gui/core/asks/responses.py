"""Whether a person's answer fits the request it answers (SPEC §3 rule 2), in sentences.

Same kind as the request; answers only to existing questions, each once and every required one
answered (or the whole request declined, with no answers);
single-select values among the options; a form's required fields present and typed; an edited
input only with a plain approval (approved, once: a rule covers requests as they are asked, never a
change of one). The service refuses an answer with any problem before anything is stored.
"""

from __future__ import annotations

from gui.core.asks.form_values import value_problems
from gui.core.asks.interactions import (
    ApprovalResponse,
    ElicitationRequest,
    ElicitationResponse,
    InteractionRequest,
    InteractionResponse,
    Question,
    QuestionRequest,
    QuestionResponse,
)
from gui.core.asks.rules import RuleError, rule_for

_ARTICLE = {"approval": "an approval", "question": "a question", "elicitation": "an elicitation"}


def response_problems(request: InteractionRequest, response: InteractionResponse) -> list[str]:
    """Everything wrong with `response` as an answer to `request` (empty: it fits)."""
    if response.kind != request.kind:
        return [
            f"interaction {request.interaction_id} is {_ARTICLE[request.kind]}: "
            f"{_ARTICLE[response.kind]} response does not fit it"
        ]
    if isinstance(response, ApprovalResponse):
        if response.always_allow and response.decision != "approved":
            return ["'always allow' goes only with an approval, not with a denial"]
        if response.edited_input is not None and response.decision != "approved":
            return ["an edit goes only with an approval: the tool runs with the edited input"]
        if response.edited_input is not None and response.scope != "once":
            # A rule covers requests as they are asked; the person changed this one, so it is approved once.
            return [f"an edit is approved once: it cannot go with the scope '{response.scope}' (a rule covers "
                    "requests as they are asked, and this one was changed); send edited_input without a scope"]
        if response.scope != "once" and response.decision != "approved":
            return [f"the scope '{response.scope}' goes only with an approval, not with a denial"]
        if response.scope == "once":
            return ["'prefix' goes only with the scope prefix"] if response.prefix is not None else []
        try:
            rule_for(response.scope, request, prefix=response.prefix, now_ms=0)
        except RuleError as exc:
            return [str(exc)]
        return []
    if isinstance(request, QuestionRequest) and isinstance(response, QuestionResponse):
        return _question_problems(request, response)
    if isinstance(request, ElicitationRequest) and isinstance(response, ElicitationResponse):
        # Only an accept carries values (the model refuses any other with values).
        return value_problems(request.fields, response.values) if response.action == "accept" else []
    return []


def _question_problems(request: QuestionRequest, response: QuestionResponse) -> list[str]:
    questions = {q.question_id: q for q in request.questions}
    if response.declined:
        if response.answers:
            given = ", ".join(a.question_id for a in response.answers)
            return [f"a decline carries no answers, got answers to: {given}"]
        return []
    problems: list[str] = []
    answered: set[str] = set()
    for answer in response.answers:
        qid = answer.question_id
        question = questions.get(qid)
        if question is None:
            problems.append(
                f"answer to question '{qid}': there is no such question (questions: {', '.join(questions)})"
            )
        elif qid in answered:
            problems.append(f"question '{qid}' is answered more than once")
        else:
            answered.add(qid)
            problems.extend(_answer_problems(question, answer.value))
    problems.extend(f"question '{qid}' has no answer (it is required)"
                    for qid, q in questions.items() if q.required and qid not in answered)
    return problems


def _answer_problems(question: Question, value: str | list[str]) -> list[str]:
    where = f"answer to question '{question.question_id}'"
    options = [o.value for o in question.options or []]
    choices = ", ".join(options) or "(none)"
    if question.response_type == "text":
        return [] if isinstance(value, str) else [f"{where} must be text, not a list"]
    if question.response_type == "single_select":
        if not isinstance(value, str):
            return [f"{where} must be one option, not a list"]
        return [] if value in options else [f"{where}: '{value}' is not one of the options: {choices}"]
    if not isinstance(value, list):
        return [f"{where} must be a list of options, not a single value"]
    problems = [f"{where}: '{v}' is not one of the options: {choices}" for v in value if v not in options]
    problems.extend(
        f"{where}: '{v}' is chosen more than once" for v in dict.fromkeys(value) if value.count(v) > 1
    )
    return problems
