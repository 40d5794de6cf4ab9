"""seq_call forwards to the runner's call_sequence, one level deeper."""

from __future__ import annotations

import pytest

from gui.core.errors import ToolArgumentError, ToolError
from gui.core.tools.registry import ToolContext
from gui.tools.seq_call import SeqCall


def context(call_sequence, depth: int = 0) -> ToolContext:
    return ToolContext(
        run_id="run-1", tool_call_id="call-1", tool_name="seq_call", call_sequence=call_sequence, depth=depth
    )


async def test_calls_the_named_sequence_one_level_deeper_and_returns_its_result():
    calls = []

    async def call_sequence(name, args, depth):
        calls.append((name, args, depth))
        return {"summary": "ok"}

    result = await SeqCall().call({"name": "巡检三节点", "args": {"host": "a", "n": 3}}, context(call_sequence, 2))
    assert result == {"summary": "ok"}
    assert calls == [("巡检三节点", {"host": "a", "n": 3}, 3)]


async def test_args_default_to_an_empty_object():
    calls = []

    async def call_sequence(name, args, depth):
        calls.append(args)

    await SeqCall().call({"name": "check"}, context(call_sequence))
    assert calls == [{}]


async def test_errors_of_the_called_sequence_reach_the_caller():
    async def call_sequence(name, args, depth):
        raise ToolError("no sequence or group named 'nope'")

    with pytest.raises(ToolError, match="nope"):
        await SeqCall().call({"name": "nope"}, context(call_sequence))


async def test_without_a_runner_it_fails():
    with pytest.raises(ToolError, match="cannot be called from here"):
        await SeqCall().call({"name": "check"}, context(None))


def test_tool_needs_no_approval_and_runs_in_parallel():
    tool = SeqCall()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("seq_call", "none", True)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "x", "args": [1]}, "args"),
        ({"name": "x", "depth": 1}, "depth"),
    ],
)
async def test_bad_arguments_name_the_field(args, field):
    async def call_sequence(name, args, depth):
        raise AssertionError("must not be called")

    with pytest.raises(ToolArgumentError) as err:
        await SeqCall().call(args, context(call_sequence))
    assert [path for path, _ in err.value.problems] == [field]
