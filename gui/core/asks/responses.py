"""Whether a person's answer to a question or a form fits the request it answers (SPEC §3 rule 2), in
sentences; and a form's values as its fields' types say.

A question's answer: answers only to existing questions, each once and every required one answered
(or the whole request declined, with no answers); single-select values among the options. A form's
answer: only an accept carries values, and they fit the fields: types, choices, bounds, lengths,
formats. The service refuses an answer with any problem before anything is stored (an approval's
answer is checked beside the rest of approvals: `gui.core.asks.service`).

A form's values are checked once: when the person answers (the inbox refuses a misfit, and the request
stays pending), or, for an answer that did not come through the inbox (another elicitation handler),
before an MCP server receives it (`gui.mcp.elicit`): a server never gets what its form said it would
refuse. `typed_values` then gives the values as the form's types say (an integer field gets an `int`),
with the form's own default for every field the person left empty: a server that offered a default
gets it back, as if the person had kept it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gui.core.asks.interactions import (
    ElicitationField,
    ElicitationRequest,
    ElicitationResponse,
    InteractionRequest,
    InteractionResponse,
    Question,
    QuestionRequest,
    QuestionResponse,
)

JsonValue = Any


def response_problems(request: InteractionRequest, response: InteractionResponse) -> list[str]:
    """Everything wrong with `response` as an answer to the question or form `request` (the service has
    checked that they are of one kind; empty: it fits)."""
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


def _finite(number: int | float) -> bool:
    """Whole numbers always are (and may be too large for `math.isfinite`, which converts to float)."""
    return isinstance(number, int) or math.isfinite(number)


def value_problems(fields: Sequence[ElicitationField], values: Mapping[str, JsonValue]) -> list[str]:
    """Everything wrong with accepted `values` for `fields` (empty: they fit). None counts as absent."""
    names = [f.name for f in fields]
    listed = ", ".join(names) or "none"
    problems = [f"there is no field '{name}' (fields: {listed})" for name in values if name not in names]
    for field in fields:
        value = values.get(field.name)
        if value is None:
            if field.required and _fitting_default(field) is None:
                problems.append(f"field '{field.name}' is required")
            continue
        problem = _type_problem(field, value)
        if problem:
            problems.append(f"field '{field.name}': {problem}")
    return problems


def typed_values(fields: Sequence[ElicitationField], values: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Values that fit `fields` (no `value_problems`) in the fields' order and types: a whole number
    typed into an integer field (`3.0` from a number box or JSON) is the `int` 3; a field left empty gets
    its default (one that fits the field), and is left out when it has none."""
    typed: dict[str, JsonValue] = {}
    for field in fields:
        value = values.get(field.name)
        if value is None:
            value = _fitting_default(field)
        if value is None:
            continue
        typed[field.name] = int(value) if field.integer and isinstance(value, float) else value
    return typed


def _fitting_default(field: ElicitationField) -> JsonValue:
    """The field's default, if it is a value the field accepts (None otherwise: a server's misfit
    default is not sent back to it as the person's answer)."""
    if field.default is None or _type_problem(field, field.default) is not None:
        return None
    return field.default


def _type_problem(field: ElicitationField, value: JsonValue) -> str | None:
    if field.multiple:
        return _choices_problem(field, value)
    problem = _plain_type_problem(field, value)
    return problem or constraint_problem(field, value)


def _choices_problem(field: ElicitationField, value: JsonValue) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f"{json.dumps(value, default=str)} is not a list of choices"
    if field.enum is not None:
        wrong = [v for v in value if v not in field.enum]
        if wrong:
            return f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not among: {', '.join(field.enum)}"
    if field.min_items is not None and len(value) < field.min_items:
        return f"choose at least {field.min_items}"
    if field.max_items is not None and len(value) > field.max_items:
        return f"choose at most {field.max_items}"
    return None


_FORMATS: dict[str, tuple[re.Pattern[str], str]] = {
    "email": (re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), "an email address like name@example.com"),
    "uri": (re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$"), "an address like https://example.com"),
    "date": (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "a date like 2026-12-01"),
    "date-time": (re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"), "a date and time like 2026-12-01T14:30"),
}


def constraint_problem(field: ElicitationField, value: JsonValue) -> str | None:
    """A bound, a length or a format the value breaks (its type already fits)."""
    if field.type == "number" and isinstance(value, int | float):
        if field.integer and not float(value).is_integer():
            return f"{value} is not a whole number"
        if field.minimum is not None and value < field.minimum:
            return f"{value} is less than {_num(field.minimum)}"
        if field.maximum is not None and value > field.maximum:
            return f"{value} is more than {_num(field.maximum)}"
    if field.type == "string" and isinstance(value, str):
        if field.min_length is not None and len(value) < field.min_length:
            return f"is shorter than {field.min_length} characters"
        if field.max_length is not None and len(value) > field.max_length:
            return f"is longer than {field.max_length} characters"
        known = _FORMATS.get(field.format or "")
        if known is not None and not known[0].match(value):
            return f"{json.dumps(value)} is not {known[1]}"
    return None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _plain_type_problem(field: ElicitationField, value: JsonValue) -> str | None:
    if field.type == "string" and not isinstance(value, str):
        return f"{_shown(value)} is not text"
    if field.type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{_shown(value)} is not a number"
        if not _finite(value):
            return f"{_shown(value)} is not a finite number"
    if field.type == "boolean" and not isinstance(value, bool):
        return f"{_shown(value)} is not true or false"
    if field.enum is not None and value not in field.enum:
        return f"{_shown(value)} is not one of: {', '.join(field.enum)}"
    return None


def _shown(value: JsonValue) -> str:
    """The value as a problem names it (written only for a problem: a value that fits costs nothing)."""
    return json.dumps(value, default=str)
