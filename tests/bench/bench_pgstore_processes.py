"""Two SeqDesk processes (two OS processes, each its own engine, pool, notices and leases) on one
PostgreSQL database: answer -> resume across them (median of 50), and 100 approve/deny pairs sent to
the two at once (winners per request: must be 1; decisions on record per request: must be 1).

Run: python tests/bench/bench_pgstore_processes.py
Answer -> resume: from the moment the second process calls respond (its wall clock) to the moment the
first process, which runs the tool, announces the request's end (the tool wakes in the same step);
both on one machine, so one clock. For a race, the first process waits until the second has heard of
the request, then tells it "go" and answers itself at once.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

ROUNDS, PAIRS = 50, 100
TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort", "tools": '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]}


async def child(url: str) -> None:
    """The second process: answers each request it hears of ("answer" mode), or, told "go ID", denies it."""
    from gui.core.events import InteractionCreated
    from gui.runtime import open_runtime

    runtime = await open_runtime(store=url)
    engine = runtime.engine
    mode = "answer"
    loop = asyncio.get_running_loop()

    async def answer(iid: str) -> None:
        started = time.time()
        await engine.respond(iid, {"kind": "approval", "decision": "approved"})
        print(f"answered {iid} {started}", flush=True)

    def heard(event: object) -> None:
        if isinstance(event, InteractionCreated) and event.record.get("status") == "pending":
            if mode == "answer":
                loop.create_task(answer(event.interaction_id))
            else:
                print(f"heard {event.interaction_id}", flush=True)

    engine.subscribe(heard)
    print("ready", flush=True)
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).split()
        if not line or line[0] == "quit":
            break
        if line[0] == "race":
            mode = "race"
        elif line[0] == "go":
            try:
                await engine.respond(line[1], {"kind": "approval", "decision": "denied"})
                print(f"won {line[1]} 1", flush=True)
            except Exception:  # the other process won
                print(f"won {line[1]} 0", flush=True)
    await runtime.close()


async def main() -> int:
    from support.postgres import start_server

    from gui.core.events import InteractionCreated, InteractionEnded
    from gui.runtime import open_runtime

    server = start_server()
    try:
        url = server.create_database()
        first = await open_runtime(store=url)
        proc = await asyncio.create_subprocess_exec(sys.executable, __file__, "--child", url,
                                                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None

        async def line() -> list[str]:
            assert proc.stdout is not None
            return (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().split()

        try:
            assert await line() == ["ready"]
            here = first.engine
            await here.create(TREE)
            ended: dict[str, float] = {}
            asked: asyncio.Queue[str] = asyncio.Queue()

            def watch(event: object) -> None:
                if isinstance(event, InteractionEnded):
                    ended[event.interaction_id] = time.time()
                elif isinstance(event, InteractionCreated) and event.record.get("status") == "pending":
                    asked.put_nowait(event.interaction_id)

            here.subscribe(watch)
            across = []
            for _ in range(ROUNDS):
                run = await here.start("asks", {})
                iid = await asyncio.wait_for(asked.get(), 30)
                kind, answered, started = await line()
                assert (kind, answered) == ("answered", iid)
                await here.runner.wait(run.run_id, 30)
                across.append((ended[iid] - float(started)) * 1000)
            proc.stdin.write(b"race\n")
            winners: list[int] = []
            first_won = 0
            for _ in range(PAIRS):
                run = await here.start("asks", {})
                iid = await asyncio.wait_for(asked.get(), 30)
                assert await line() == ["heard", iid]
                proc.stdin.write(f"go {iid}\n".encode())
                await proc.stdin.drain()
                try:
                    await here.respond(iid, {"kind": "approval", "decision": "approved"})
                    mine = 1
                except Exception:
                    mine = 0
                kind, which, theirs = await line()
                assert (kind, which) == ("won", iid)
                winners.append(mine + int(theirs))
                first_won += mine
                await here.runner.wait(run.run_id, 30)
            entries, verdict = await here.decisions()
            per_request: dict[str, int] = {}
            for entry in entries:
                per_request[entry.interaction_id] = per_request.get(entry.interaction_id, 0) + 1
            proc.stdin.write(b"quit\n")
            await proc.stdin.drain()
            await asyncio.wait_for(proc.wait(), 30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            await first.close()
    finally:
        server.stop()
    print(f"answer -> resume, across two OS processes: median {statistics.median(across):.2f} ms (of {ROUNDS}; "
          f"middle half {statistics.quantiles(across, n=4)[0]:.2f}-{statistics.quantiles(across, n=4)[2]:.2f} ms)")
    print(f"approve/deny pairs across two OS processes: {PAIRS}; winners per request: {sorted(set(winners))}; "
          f"the first process won {first_won}, the second {PAIRS - first_won}")
    print(f"record of decisions: {len(entries)} entries for {len(per_request)} requests; per request: "
          f"{sorted(set(per_request.values()))}; chain {'unbroken' if verdict.ok else verdict.sentence()}")
    return 0 if set(winners) == {1} and set(per_request.values()) == {1} else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        asyncio.run(child(sys.argv[2]))
    else:
        sys.exit(asyncio.run(main()))
