"""Two engines on one PostgreSQL database, as two team processes (each its own pool and notices):
answer -> resume in the same process and across the two (medians of 50), and 100 concurrent
approve/deny pairs sent to the two at once (winners per request: must be 1).

Run: python tests/bench/bench_pgstore_team.py
Answer -> resume is measured from the call that answers to the moment the waiting process's service
announces the end (it wakes the tool in the same step); the two engines share one event loop here,
so "across" is across connections and LISTEN/NOTIFY, not across OS processes.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from support.postgres import start_server  # noqa: E402

from gui.core.events import InteractionCreated, InteractionEnded  # noqa: E402
from gui.runtime import open_runtime  # noqa: E402

ROUNDS, PAIRS = 50, 100
TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort", "tools": '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]}


class Watch:
    """The next pending request and the moment each request ended, as the running engine sees them."""

    def __init__(self, engine: object) -> None:
        self.asked: asyncio.Queue[str] = asyncio.Queue()
        self.ended: dict[str, float] = {}
        self.ended_event: dict[str, asyncio.Event] = {}
        engine.subscribe(self.on_event)  # type: ignore[attr-defined]

    def on_event(self, event: object) -> None:
        if isinstance(event, InteractionCreated) and event.record.get("status") == "pending":
            self.asked.put_nowait(event.interaction_id)
        elif isinstance(event, InteractionEnded):
            self.ended[event.interaction_id] = time.perf_counter()
            self.ended_event.setdefault(event.interaction_id, asyncio.Event()).set()

    async def end_of(self, iid: str) -> float:
        await asyncio.wait_for(self.ended_event.setdefault(iid, asyncio.Event()).wait(), 10)
        return self.ended[iid]


async def answer_to_resume(here: object, answering: object, watch: Watch) -> list[float]:
    times = []
    for _ in range(ROUNDS):
        run = await here.start("asks", {})  # type: ignore[attr-defined]
        iid = await asyncio.wait_for(watch.asked.get(), 10)
        started = time.perf_counter()
        await answering.respond(iid, {"kind": "approval", "decision": "approved"})  # type: ignore[attr-defined]
        times.append((await watch.end_of(iid) - started) * 1000)
        await here.runner.wait(run.run_id, 10)  # type: ignore[attr-defined]
    return times


async def races(here: object, there: object, watch: Watch) -> list[int]:
    winners = []
    for _ in range(PAIRS):
        run = await here.start("asks", {})  # type: ignore[attr-defined]
        iid = await asyncio.wait_for(watch.asked.get(), 10)
        results = await asyncio.gather(
            here.respond(iid, {"kind": "approval", "decision": "approved"}),  # type: ignore[attr-defined]
            there.respond(iid, {"kind": "approval", "decision": "denied"}),  # type: ignore[attr-defined]
            return_exceptions=True)
        winners.append(sum(not isinstance(r, BaseException) for r in results))
        await here.runner.wait(run.run_id, 10)  # type: ignore[attr-defined]
    return winners


async def main() -> int:
    server = start_server()
    try:
        url = server.create_database()
        first, second = await open_runtime(store=url), await open_runtime(store=url)
        try:
            here, there = first.engine, second.engine
            await here.create(TREE)
            watch = Watch(here)
            same = await answer_to_resume(here, here, watch)
            across = await answer_to_resume(here, there, watch)
            winners = await races(here, there, watch)
        finally:
            await first.close()
            await second.close()
    finally:
        server.stop()
    print(f"answer -> resume, same process:  median {statistics.median(same):.2f} ms (of {ROUNDS})")
    print(f"answer -> resume, across two:    median {statistics.median(across):.2f} ms (of {ROUNDS})")
    print(f"approve/deny pairs: {PAIRS}; winners per request: {sorted(set(winners))}")
    return 0 if set(winners) == {1} else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
