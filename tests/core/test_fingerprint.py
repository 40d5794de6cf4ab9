"""Fingerprints: a step's stays while nothing that runs changes, and changes with anything that does;
a group's stays the function run records were made with."""

from __future__ import annotations

import hashlib
import json

import pytest

from gui.core.sequences.fingerprint import Step, digest, group_fingerprint, step_fingerprint, step_of
from gui.core.sequences.model import Group, SlotType, ToolCall

CALL = ToolCall(tool="cmd_run", args={"command": "echo $args.host", "cwd": "/tmp"}, as_="said")
GROUP = Group(name="g", description="d", in_={"host": SlotType.STRING}, out={"said": SlotType.STRING},
              tools=(CALL,))
BEFORE = step_fingerprint(CALL, GROUP)


@pytest.mark.parametrize("group", [
    GROUP.model_copy(update={"name": "renamed"}),
    GROUP.model_copy(update={"description": "other words"}),
    GROUP.model_copy(update={"out": {"other": SlotType.STRING}}),
    GROUP.model_copy(update={"when": "$args.host != 'x'", "timeout": "5s"}),
    GROUP.model_copy(update={"tools": (CALL, ToolCall(tool="echo", args={"value": 1}))}),
])
def test_a_step_keeps_its_fingerprint_when_nothing_that_runs_changes(group):
    call = CALL.model_copy(update={"as_": "elsewhere"})
    assert step_fingerprint(call, group) == BEFORE
    assert step_fingerprint(ToolCall(tool="cmd_run", args={"cwd": "/tmp", "command": "echo $args.host"}),
                            group) == BEFORE  # the order keys were written in does not count


@pytest.mark.parametrize(("call", "inputs"), [
    (ToolCall(tool="cmd_run", args={"command": "echo $args.host; id", "cwd": "/tmp"}), None),
    (ToolCall(tool="cmd_run", args={"command": "echo $args.host"}), None),
    (ToolCall(tool="cmd_run", args={"command": "echo $args.host", "cwd": "/tmp", "timeout": 5}), None),
    (ToolCall(tool="file_write", args={"command": "echo $args.host", "cwd": "/tmp"}), None),
    (CALL, {"host": SlotType.NUMBER}),
    (CALL, {"host": SlotType.STRING, "extra": SlotType.STRING}),
    (CALL, {"name": SlotType.STRING}),
])
def test_a_step_gets_another_fingerprint_when_its_tool_arguments_or_inputs_change(call, inputs):
    group = GROUP if inputs is None else GROUP.model_copy(update={"in_": inputs})
    assert step_fingerprint(call, group) != BEFORE


def test_a_host_joins_the_fingerprint_only_when_set():
    step = step_of(CALL, GROUP)
    assert Step(step.tool, step.args, step.inputs, on=None).fingerprint == BEFORE
    assert Step(step.tool, step.args, step.inputs, on="node-1").fingerprint not in (BEFORE, Step(
        step.tool, step.args, step.inputs, on="node-2").fingerprint)


def test_the_group_fingerprint_is_the_one_run_records_were_made_with():
    """Resume compares a saved group with the fingerprint kept in old run records: same function."""
    text = json.dumps(GROUP.model_dump(mode="json", by_alias=True), sort_keys=True, ensure_ascii=True)
    assert group_fingerprint(GROUP) == hashlib.sha256(text.encode()).hexdigest()[:20]
    assert digest({"b": 1, "a": "ü"}) == digest({"a": "ü", "b": 1}) and len(digest([])) == 20


@pytest.mark.parametrize("group", [
    GROUP,
    Group(name="odd values", tools=(
        ToolCall(tool="x", args={"inf": float("inf"), "nan": [float("nan")], "pair": (1, 2), "keys": {1: 2}}),
        ToolCall(tool="x", args={"text": "ünï \ud800 ✓", "n": [1, 2.5, True, None, {"k": []}]}, as_="o"),
        ToolCall(tool="y", on="node-1"),
        ToolCall(tool="y", args={"value": SlotType.STRING}),
    )),
    Group(name="answerers", in_={"x": SlotType.STRING}, timeout="5s", asking={"approvers": ["b"]}, tools=(
        ToolCall(tool="x", args={"a": 1}, asking={"approvers": ["a"], "required": 1}),
        ToolCall(tool="x", args={"a": 1}),
    )),
])
def test_a_group_fingerprint_made_by_hand_is_the_one_pydantic_s_dump_gives(group):
    """Plain steps are dumped by hand (a run fingerprints every group as it begins): the same digest
    as pydantic's dump, and that dump for every step it would change (inf, tuples, enums, answerers)."""
    assert group_fingerprint(group) == digest(group.model_dump(mode="json", by_alias=True))


def test_a_tree_is_fingerprinted_once_while_it_lives(monkeypatch):
    """A store keeps each saved sequence's tree (frozen): each of its runs begins with the same
    fingerprints, made once; a tree made again (equal, or changed) gets its own."""
    import gc

    import gui.core.sequences.fingerprint as fingerprint

    made: list[str] = []
    original = fingerprint._group_fingerprint
    monkeypatch.setattr(fingerprint, "_group_fingerprint", lambda g: made.append(g.name) or original(g))
    group = Group(name="kept", tools=(ToolCall(tool="echo", args={"value": 1}),))
    first = group_fingerprint(group)
    assert group_fingerprint(group) == first and made == ["kept"]
    again = Group.model_validate(group.model_dump(by_alias=True))
    assert group_fingerprint(again) == first and made == ["kept", "kept"]
    changed = again.model_copy(update={"description": "other"})
    assert group_fingerprint(changed) != first
    keys = {id(group), id(again), id(changed)}
    assert keys <= set(fingerprint._FINGERPRINTS)
    del group, again, changed
    gc.collect()
    assert not keys & set(fingerprint._FINGERPRINTS)  # gone with their trees
