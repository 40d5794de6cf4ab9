"""Checking a run's args against a signature before anything runs: one clear error listing all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gui.core.errors import Invalid
from gui.core.sequences.model import SlotType, json_type_name, matches_type


class RunArgsError(Invalid):
    """The args do not fit the signature; `problems` has one sentence per mistake."""

    code = "invalid-run-args"

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("the run's args do not fit the sequence: " + "; ".join(problems))


type_name = json_type_name


def args_problems(inputs: Mapping[str, SlotType], args: Any) -> list[str]:
    if not isinstance(args, dict):
        return [f"args must be an object like {{\"name\": value}}, not {type_name(args)}"]
    problems = []
    for name, slot_type in inputs.items():
        if name not in args:
            problems.append(f"'{name}' is missing (a {slot_type.value})")
        elif not matches_type(args[name], slot_type):
            problems.append(f"'{name}' must be a {slot_type.value}, not {type_name(args[name])}")
    for name in args:
        if name not in inputs:
            expected = ", ".join(inputs) or "none"
            problems.append(f"'{name}' is not an input of this sequence (its inputs: {expected})")
    return problems


def check_args(inputs: Mapping[str, SlotType], args: Any) -> dict[str, Any]:
    problems = args_problems(inputs, args)
    if problems:
        raise RunArgsError(problems)
    return dict(args)
