"""Fingerprints: a part of a sequence hashed, so that a later copy can be told unchanged or changed.

One way to fingerprint everything: the parts as canonical JSON (keys sorted, ASCII only), sha256,
the first 20 hex digits. Two things are fingerprinted:

- **a group** as saved (`group_fingerprint`): a resumed run keeps a group's results only while the
  group is exactly as it ran (every field counts, its name too);
- **a tool step** (`step_fingerprint`): what an approval rule made from that step covers
  (`gui.core.asks.rules`). A run fingerprints its steps whose tools ask once, as its record is
  made (`run_step_fingerprints`, beside each group's `group_fingerprint`), and every approval it
  asks carries its step's. Its parts are what decides what runs: the tool's name, its arguments as
  written in the sequence (the templates, before any input is put in), and the inputs its group
  declares (`in`, names and types). Renaming the group, changing its description, its `out`, its
  condition or the step's `as` changes nothing that runs, so the fingerprint stays; a change of
  tool, of any argument or of the inputs makes a new one, and a rule asks again.

A step's parts are open to more (SPEC §9: `on`, the worker a step runs on): a part that is not set
is left out of the JSON, so a step without a host keeps the fingerprint it has today, and the same
step on a host gets another.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.json_text import is_plain_json
from gui.core.sequences.model import Group, ToolCall

FINGERPRINT_DIGITS = 20


def digest(parts: Any) -> str:
    """The fingerprint of a JSON value: canonical text (keys sorted, ASCII), sha256, 20 hex digits."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:FINGERPRINT_DIGITS]


def group_fingerprint(group: Group) -> str:
    """The group as saved, hashed: equal exactly when nothing about it changed (kept in run records,
    so this must stay the same function for as long as those records are resumed).

    A run fingerprints every group as it begins, so it costs little: a tree is frozen, and the one a
    store keeps (the app's reads each saved sequence once) is fingerprinted once for all its runs
    (kept by the tree's identity while it lives); its steps are dumped by hand when that gives what
    pydantic's dump would (`_plain_step`), which costs more than the engine's own work for a step."""
    key = id(group)
    known = _FINGERPRINTS.get(key)
    if known is not None and known[0]() is group:
        return known[1]
    fingerprint = _group_fingerprint(group)
    _FINGERPRINTS[key] = (weakref.ref(group, lambda _gone: _FINGERPRINTS.pop(key, None)), fingerprint)
    return fingerprint


# By the identity of a living tree: its weak reference (to tell it from a later object with its id), its fingerprint.
_FINGERPRINTS: dict[int, tuple[weakref.ref[Group], str]] = {}


def _group_fingerprint(group: Group) -> str:
    parts = group.model_dump(mode="json", by_alias=True, exclude={"tools"})
    parts["tools"] = [_plain_step(call) or call.model_dump(mode="json", by_alias=True) for call in group.tools]
    return digest(parts)


def _plain_step(call: ToolCall) -> dict[str, Any] | None:
    """The step as `ToolCall.model_dump(mode="json", by_alias=True)` gives it, when its arguments are
    plain JSON (`is_plain_json`), which that dump leaves as they are; None otherwise (and for a step
    that names its answerers)."""
    if call.asking is not None or not is_plain_json(call.args):
        return None
    step: dict[str, Any] = {"tool": call.tool, "args": call.args, "as": call.as_}
    if call.on is not None:
        step["on"] = call.on
    return step


@dataclass(frozen=True)
class Step:
    """What a tool step runs: the parts of its fingerprint."""

    tool: str
    args: Mapping[str, Any]  # as written in the sequence, templates unfilled
    inputs: Mapping[str, str] = field(default_factory=dict)  # the group's `in`: name -> type
    on: str | None = None  # the host it runs on (`ToolCall.on`)

    def parts(self) -> dict[str, Any]:
        parts: dict[str, Any] = {"kind": "step", "tool": self.tool, "args": dict(self.args),
                                 "in": dict(self.inputs)}
        if self.on is not None:
            parts["on"] = self.on
        return parts

    @property
    def fingerprint(self) -> str:
        return digest(self.parts())


def step_of(call: ToolCall, group: Group) -> Step:
    """The step `call` of `group` is."""
    return Step(tool=call.tool, args=call.args, inputs={name: kind.value for name, kind in group.in_.items()},
                on=call.on)


def step_fingerprint(call: ToolCall, group: Group) -> str:
    return step_of(call, group).fingerprint


def run_step_fingerprints(groups: Iterable[Group],
                          asks: Callable[[str], bool]) -> tuple[tuple[str | None, ...], ...]:
    """The fingerprint of every step of `groups` whose tool `asks` before it runs, by group, then step
    (their indexes in the run); None for a step whose tool does not ask (no rule is made from it)."""
    asking: dict[str, bool] = {}

    def fingerprints(group: Group) -> tuple[str | None, ...]:
        some = False  # whether some tool of the group asks (most groups: none), each tool asked once a run
        for call in group.tools:
            name = call.tool
            asked = asking.get(name)
            if asked is None:
                asked = asking[name] = asks(name)
            some = some or asked
        if not some:
            return (None,) * len(group.tools)
        return tuple(step_fingerprint(call, group) if asking[call.tool] else None for call in group.tools)

    return tuple(fingerprints(group) for group in groups)


def step_fingerprints(group: Group, tool: str | None = None) -> set[str]:
    """The fingerprints of the steps of `group` (of the tool `tool` only, when given)."""
    return {step_fingerprint(call, group) for call in group.tools if tool is None or call.tool == tool}
