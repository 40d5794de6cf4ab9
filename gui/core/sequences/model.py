"""The parsed, validated tree of a sequence: what is stored and what the runner runs.

Every model is frozen: a stored sequence is never edited in place, only replaced by a newly
validated one. `ToolCall.as_` is spelled `as` in JSON (a Python keyword); `ToolCall.on` names the host a step runs on.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from gui.core.sequences.asking import Asking
from gui.core.sequences.durations import parse_duration
from gui.core.sequences.substitution import holds_references

JsonValue = Any


class SlotType(StrEnum):
    STRING = "string"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"
    OBJECT = "object"


class Missing(StrEnum):
    """What a group does when a tool is not in the registry at run time."""

    FAIL = "fail"
    SKIP = "skip"
    DEGRADE = "degrade"


class OnError(StrEnum):
    ABORT = "abort"
    CONTINUE = "continue"
    RETRY = "retry"


RETRY_ATTEMPTS = 3  # `on_error: retry`: this many attempts in all, backing off between them


SLOT_TYPE_NAMES = tuple(t.value for t in SlotType)


def matches_type(value: JsonValue, slot_type: SlotType) -> bool:
    """Whether a JSON value fits a declared slot type (booleans are not numbers)."""
    if slot_type is SlotType.STRING:
        return isinstance(value, str)
    if slot_type is SlotType.NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if slot_type is SlotType.BOOLEAN:
        return isinstance(value, bool)
    if slot_type is SlotType.ARRAY:
        return isinstance(value, list)
    return isinstance(value, dict)


def json_type_name(value: JsonValue) -> str:
    """The JSON kind of a value, in the words of the slot types (`number`, `array`, …)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "null" if value is None else type(value).__name__


def _without_unset_asking(data: dict[str, Any]) -> dict[str, Any]:
    """A group or step that says nothing of who answers dumps as it did before it could (its fingerprint
    stays the same)."""
    if data.get("asking") is None:
        data.pop("asking", None)
    return data


class ToolCall(BaseModel):
    """One `{"tool": …, "args": {…}, "as": …}` object of a group's `tools` string."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    tool: str
    args: dict[str, JsonValue] = Field(default_factory=dict)
    as_: str | None = Field(default=None, alias="as")
    # Who answers this step's requests, over its group's (`gui.core.sequences.asking`); None: as its group says.
    asking: Asking | None = None
    # The host it runs on (a `seqdesk worker --name` of the team); None: where the run runs.
    on: str | None = None

    @model_serializer(mode="wrap")
    def _asking_and_host_when_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A step that names no answerers and no host dumps as it did before either existed: the group
        # fingerprints kept in run records stay.
        data = _without_unset_asking(handler(self))
        if data.get("on", "") is None:
            del data["on"]
        return data

    @property
    def literal(self) -> bool:
        """Whether its args hold no `$args.<name>`: decided once for the step, which every run of it
        then binds as they are (`bind_literal`), without reading them for references. (Read again
        for a copy made with other args: `model_copy(update=...)` keeps what was decided here.)"""
        args, literal = self.decided_literal
        return literal if args is self.args else not holds_references(self.args)

    @functools.cached_property
    def decided_literal(self) -> tuple[dict[str, JsonValue], bool]:
        """The args `literal` was decided for, and what it decided."""
        return self.args, not holds_references(self.args)


class Group(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)

    name: str
    description: str = ""
    in_: dict[str, SlotType] = Field(default_factory=dict, alias="in")
    out: dict[str, SlotType] = Field(default_factory=dict)
    when: str = "true"
    parallel: bool = True
    missing: Missing = Missing.FAIL
    timeout: str | None = None
    on_error: OnError = OnError.ABORT
    tools: tuple[ToolCall, ...]
    # Who answers its requests and how many must agree (`gui.core.sequences.asking`); None: anyone, one answer.
    asking: Asking | None = None

    @model_serializer(mode="wrap")
    def _asking_when_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset_asking(handler(self))

    @property
    def timeout_seconds(self) -> float | None:
        return None if self.timeout is None else parse_duration(self.timeout)


class Sequence(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    groups: tuple[Group, ...]
    # Not part of the format: given when the sequence is first saved (`gui.core.door.catalog`), kept by every
    # later save and rename, never inherited by a sequence deleted and made again under the same name.
    # Approval rules name it. None for a document that was never saved (a file given to `seqdesk run`).
    identity: str | None = None

    def group(self, name: str) -> Group | None:
        return next((g for g in self.groups if g.name == name), None)


class Signature(BaseModel):
    """Inputs a caller must give (not provided by an earlier group's `out`), and every output slot."""

    model_config = ConfigDict(frozen=True)

    inputs: dict[str, SlotType] = Field(default_factory=dict)
    outputs: dict[str, SlotType] = Field(default_factory=dict)
