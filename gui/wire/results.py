"""A sequence's validation result on the wire, both ways: `capped` writes one into an answer (at most
MAX_PROBLEMS problems, each message at most MAX_MESSAGE characters), `result_from` reads it back."""

from __future__ import annotations

from typing import Any

from gui.core.sequences import Problem, ValidationResult

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


def problem_from(data: dict[str, Any], severity: str = "error") -> Problem:
    """A problem as `Problem.to_json` wrote it."""
    return Problem.model_validate({**data, "loc": tuple(data["loc"]), "severity": severity})


def result_from(body: dict[str, Any]) -> ValidationResult:
    """The errors and warnings of a `ValidationResult` as `capped` writes one."""
    return ValidationResult(errors=[problem_from(p) for p in body["errors"]],
                            warnings=[problem_from(p, "warning") for p in body["warnings"]])
