"""Temporal's side of bench_peers.py: its workflows and activities, which Temporal wants at a module's
top level (it refuses local classes). Imported only by bench_peers.py's `--child temporal`, in the
peers' virtual environment: the project never imports it.

- `Fan`: each group an `asyncio.gather` of local activities of `echo` (the echo-like tool);
- `Ask`: stores its request (bench_peers.REQUEST, the argument of the local activity `store_request`,
  whose marker lands in the history),
  waits for the `answer_with` signal, then runs the tool (the local activity `tool`, which notes when
  it started).
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

from bench_peers import REQUEST, echo_tool
from temporalio import activity, workflow

TIMEOUT = timedelta(seconds=120)
ECHO = echo_tool()
announced: asyncio.Queue[str] = asyncio.Queue()  # workflow ids whose request was stored
resumed: dict[str, float] = {}  # workflow id → perf_counter() when its tool started after the answer


@activity.defn(name="echo")
async def echo(arg: dict[str, Any]) -> Any:
    return await ECHO(arg)


@activity.defn(name="store_request")
async def store_request(request: dict[str, Any]) -> None:
    announced.put_nowait(activity.info().workflow_id)


@activity.defn(name="tool")
async def tool(decision: str) -> str:
    resumed[activity.info().workflow_id] = time.perf_counter()
    return decision


ACTIVITIES = [echo, store_request, tool]


@workflow.defn(name="Fan")
class Fan:
    @workflow.run
    async def run(self, groups: int, tools: int) -> int:
        done = 0
        for _ in range(groups):
            results = await asyncio.gather(*(workflow.execute_local_activity(
                echo, {"value": 1}, start_to_close_timeout=TIMEOUT) for _ in range(tools)))
            done += len(results)
        return done


@workflow.defn(name="Ask")
class Ask:
    def __init__(self) -> None:
        self.answer: str | None = None

    @workflow.run
    async def run(self) -> str:
        await workflow.execute_local_activity(store_request, REQUEST, start_to_close_timeout=TIMEOUT)
        await workflow.wait_condition(lambda: self.answer is not None)
        return await workflow.execute_local_activity(tool, self.answer, start_to_close_timeout=TIMEOUT)

    @workflow.signal
    def answer_with(self, decision: str) -> None:
        self.answer = decision
