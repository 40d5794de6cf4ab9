"""A call that asks and is retried (on_error: retry) is asked once per attempt, and no more, on both
executors: on Temporal each ask pauses the call and the answer makes it again, in the attempt that
asked (its count goes on, it does not start over)."""

from __future__ import annotations

import pytest
from support.builders import group, seq, tools
from support.executors import composed
from support.waiting import wait_until

from gui.core.asks import ApprovalResponse
from gui.memory import MemoryStores
from gui.tools import default_registry

pytestmark = pytest.mark.usefixtures("on_both_executors")
T = 30.0


async def test_a_retried_step_that_asks_is_asked_once_per_attempt_then_fails() -> None:
    engine = composed(default_registry(), MemoryStores(), retry_backoff=0.01)
    await engine.create(seq(group("g", on_error="retry", tools=tools(
        {"tool": "cmd_run", "args": {"command": "echo no >&2; false"}}))))
    run = await engine.start("s", {})
    answered: list[str] = []

    async def answer() -> bool:
        for pending in await engine.interactions.pending():
            answered.append(pending.interaction_id)
            await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        return engine.runner.snapshot(run.run_id) is None

    await wait_until(answer, "the run's end", timeout=T)
    record = await engine.runner.wait(run.run_id, T)
    [tool] = record.groups[0].tools
    assert record.status == "failed" and tool.attempts == 3
    assert len(answered) == len(set(answered)) == 3  # one request per attempt
    assert "exited with code 1" in (tool.error or "")
