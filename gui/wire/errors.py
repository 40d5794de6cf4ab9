"""The one table between SeqDesk's exceptions (`gui.core.errors`) and the API's answers, both ways.

An exception a route lets through becomes `{"detail": <its sentence>, "code": <its stable code>, ...}`
with its family's status (`body_of`; the app's handlers, `gui.api.errors`, answer with it). The fields
beside the sentence are what a client needs to act on it (every problem of an invalid sequence, the
candidates of an ambiguous run id, the field of a schedule at fault). `RemoteEngine` reads the same
table back (`error_from`): the code names the very class the engine raised, rebuilt from those fields,
so a caller of the CLI or `seqdesk mcp` catches what it would catch with the engine in its own process.
An answer without a known code (the gates in front of the routes answer before any of this) is
raised as the family of its status. No web framework here: the client reads it without loading one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from gui.core.asks import AlreadyApproved, InteractionNotPendingError, InteractionValidationError, NotAnApprover
from gui.core.door import (
    AskInvalid,
    McpServerExists,
    McpServerInvalid,
    McpServerNotFound,
    NotFoundError,
    SignInFailed,
    TooManyAsks,
)
from gui.core.errors import FAMILIES, Refused, SeqDeskError, Unavailable
from gui.core.runs import AmbiguousRunIdError, ResumeRefused, ScheduleInvalid
from gui.core.sequences import DslError, InvalidSequenceError, Problem, RunArgsError, ValidationResult
from gui.wire.results import MAX_MESSAGE, capped, result_from


def _no_fields(exc: Any) -> dict[str, Any]:
    return {}


class Wire(NamedTuple):
    """How one exception class crosses HTTP: its sentence, the fields beside it, and how a client
    makes it again from them (None: from the sentence alone)."""

    kind: type[SeqDeskError]
    detail: Callable[[Any], str] = str
    fields: Callable[[Any], dict[str, Any]] = _no_fields
    rebuild: Callable[[str, dict[str, Any]], SeqDeskError] | None = None


def _result(exc: DslError) -> ValidationResult:
    if isinstance(exc, InvalidSequenceError):
        return exc.result
    return ValidationResult(errors=exc.errors, warnings=[p for p in exc.problems if p not in exc.errors])


def _sequence_sentence(exc: DslError) -> str:
    """The first problem in the sentence (every one of them is in `errors`)."""
    errors = _result(exc).errors
    first = str(errors[0])[:MAX_MESSAGE] if errors else "the sequence is not valid"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"the sequence is not valid: {first}{more}"


def _sequence_problems(exc: DslError) -> dict[str, Any]:
    return capped(_result(exc))


def _problems(result: ValidationResult) -> list[Problem]:
    return [*result.errors, *result.warnings]


TABLE: tuple[Wire, ...] = (
    Wire(SeqDeskError),
    *(Wire(family) for family in FAMILIES),
    Wire(NotFoundError),
    Wire(ResumeRefused),
    Wire(AmbiguousRunIdError, fields=lambda e: {"prefix": e.prefix, "candidates": e.candidates},
         rebuild=lambda _d, b: AmbiguousRunIdError(str(b["prefix"]), [str(c) for c in b["candidates"]])),
    Wire(RunArgsError, fields=lambda e: {"problems": e.problems},
         rebuild=lambda _d, b: RunArgsError([str(p) for p in b["problems"]])),
    Wire(ScheduleInvalid, fields=lambda e: {"fields": e.fields},
         rebuild=lambda d, b: ScheduleInvalid({str(k): str(v) for k, v in b["fields"].items()}, message=d)),
    Wire(DslError, detail=_sequence_sentence, fields=_sequence_problems,
         rebuild=lambda _d, b: DslError(_problems(result_from(b)))),
    Wire(InvalidSequenceError, detail=_sequence_sentence, fields=_sequence_problems,
         rebuild=lambda _d, b: InvalidSequenceError(result_from(b))),
    Wire(InteractionNotPendingError),
    Wire(InteractionValidationError),
    Wire(NotAnApprover),
    Wire(AlreadyApproved),
    Wire(McpServerNotFound),
    Wire(McpServerExists),
    Wire(McpServerInvalid),
    Wire(SignInFailed),
    Wire(AskInvalid),
    Wire(TooManyAsks),
)
BY_CODE: dict[str, Wire] = {wire.kind.code: wire for wire in TABLE}
_BY_KIND: dict[type[SeqDeskError], Wire] = {wire.kind: wire for wire in TABLE}
_BY_STATUS: dict[int, type[SeqDeskError]] = {family.status: family for family in FAMILIES}


def wire_of(exc: SeqDeskError) -> Wire:
    """The row of the nearest class in the table (every exception has one: its family's, at least)."""
    return next(_BY_KIND[kind] for kind in type(exc).__mro__ if kind in _BY_KIND)


def body_of(exc: SeqDeskError) -> dict[str, Any]:
    wire = wire_of(exc)
    return {"detail": wire.detail(exc), "code": exc.code, **wire.fields(exc)}


def error_from(status: int, body: Any, fallback: str) -> SeqDeskError:
    """The exception an answer with `status` and (JSON) `body` stands for: the class its code names,
    made again from its fields; else the family of its status with the answer's sentence (or
    `fallback`, when it gives none)."""
    fields: dict[str, Any] = body if isinstance(body, dict) else {}
    detail = str(fields.get("detail") or fallback)
    code = fields.get("code")
    wire = BY_CODE.get(code) if isinstance(code, str) else None
    if wire is not None:
        try:
            return wire.rebuild(detail, fields) if wire.rebuild is not None else wire.kind(detail)
        except (KeyError, TypeError, AttributeError, ValueError):  # pydantic's ValidationError is a ValueError
            pass  # fields that do not fit: the family still says what kind of failure it is
        status = wire.kind.status
    return (_BY_STATUS.get(status) or (Refused if status < 500 else Unavailable))(detail)


def error_in(status: int, content: bytes, fallback: str) -> SeqDeskError:
    """`error_from` for the bytes of an answer, whatever they hold."""
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    return error_from(status, body, fallback)

