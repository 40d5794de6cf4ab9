"""Records as the stores write them: JSON text that any decoded value fits (see `to_json_text`)."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel


def to_json_text(model: BaseModel, *, compact: bool = False) -> str:
    """A record as the file stores write it: ASCII JSON, so any text (even a lone surrogate that a
    tool's JSON answer carried) can be stored; pydantic's own (fast) JSON refuses such text, so it is
    used first and the standard library only when it refuses. `compact`: without the fields still at
    their defaults, which reading it back fills in again (a run of a thousand tools waiting to start
    is a sixth as long, and written in two thirds of the time)."""
    try:
        return model.model_dump_json(by_alias=True, exclude_defaults=compact)
    except ValueError:  # PydanticSerializationError: a lone surrogate somewhere
        return json.dumps(model.model_dump(mode="json", by_alias=True, exclude_defaults=compact))


def is_plain_json(value: Any) -> bool:
    """Whether `value` is plain JSON that pydantic's JSON-mode dump gives back as it is: text, whole
    numbers, finite fractions, yes/no, nothing, lists and objects with text keys (exact types: an
    enum, a tuple or a subclass may dump otherwise, and inf and nan dump as null)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return all(type(key) is str and is_plain_json(item) for key, item in value.items())
    if kind is list:
        return all(is_plain_json(item) for item in value)
    return False
