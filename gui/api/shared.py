"""What every API route shares: the engine it was handed, readable errors, and JSON shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import json_response
from gui.core.asks import InteractionRecord
from gui.core.door import Engine
from gui.core.runs import RunRecord
from gui.core.sequences import ValidationResult

EngineProvider = Callable[[], Engine]  # the open engine, or BadRequest(503) while it is not open yet


def pydantic_detail(exc: ValidationError | RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        got = f" (got {error['input']!r:.60})" if "input" in error and error.get("type") != "missing" else ""
        parts.append(f"{where}: {error.get('msg', 'is not valid')}{got}")
    return "; ".join(parts) or "the request is not valid"


def record_json(record: RunRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True)


def interaction_json(record: InteractionRecord) -> dict[str, Any]:
    return {"interaction_id": record.interaction_id, **record.model_dump(mode="json")}


MAX_PROBLEMS = 100
MAX_MESSAGE = 500


def capped(result: ValidationResult) -> dict[str, Any]:
    """`result.to_json()` with at most MAX_PROBLEMS errors and warnings, each message shortened: an
    answer about a huge document stays small (the totals say how many there were)."""
    body = result.to_json()
    for key in ("errors", "warnings"):
        problems = body[key]
        if len(problems) > MAX_PROBLEMS:
            body[f"{key}_total"] = len(problems)
            body[key] = problems = problems[:MAX_PROBLEMS]
        for problem in problems:
            if len(problem["message"]) > MAX_MESSAGE:
                problem["message"] = problem["message"][:MAX_MESSAGE] + "…"
    return body


def validation_failure(result: ValidationResult) -> Response:
    count = len(result.errors)
    first = str(result.errors[0])[:MAX_MESSAGE] if result.errors else "the sequence is not valid"
    more = f" (and {count - 1} more)" if count > 1 else ""
    return json_response({"detail": f"the sequence is not valid: {first}{more}", **capped(result)}, 422)


