"""sleep: waits, gives back the seconds, and stops waiting at once when cancelled."""

from __future__ import annotations

import asyncio

import pytest
from support.waiting import within

from gui.core.errors import ToolArgumentError
from gui.tools.sleep import Sleep


@pytest.mark.parametrize("seconds", [0, 0.01])
async def test_result_is_the_seconds_slept(ctx, seconds):
    assert await Sleep().call({"seconds": seconds}, ctx) == seconds


async def test_cancelling_ends_the_wait(ctx):
    task = asyncio.create_task(Sleep().call({"seconds": 3600}, ctx))
    await asyncio.sleep(0)  # one turn of the loop: the task is now inside its wait
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled sleep to end")


def test_tool_needs_no_approval_and_runs_in_parallel():
    tool = Sleep()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("sleep", "none", True)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "seconds"),
        ({"seconds": -1}, "seconds"),
        ({"seconds": 24 * 3600 + 1}, "seconds"),
        ({"seconds": "soon"}, "seconds"),
        ({"seconds": 1, "unit": "m"}, "unit"),
    ],
)
async def test_bad_arguments_name_the_field(ctx, args, field):
    with pytest.raises(ToolArgumentError) as err:
        await Sleep().call(args, ctx)
    assert [path for path, _ in err.value.problems] == [field]
