"""Time from a request for a person to its webhook's arrival (median of 20).

A script, not a test: `python tests/bench/bench_notify.py [--count 20] [--app]`.

- default: the engine in this process with the notifier attached; a local HTTP listener (a
  thread) takes the webhook's POST. A sample runs from just before `interactions.request(...)` to
  the listener's arrival stamp (the same clock, `time.perf_counter`).
- `--app`: the real app in a subprocess (`python -m gui --browser`), the webhook set over the API,
  and each sample a run started over the API (`POST /api/runs` of a one-command sequence) until
  its request's webhook arrives: what a person's phone would see, run start included.

Prints every sample and the median, in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.listeners import http_listener  # noqa: E402


async def in_process(count: int) -> list[float]:
    from gui.core.asks.interactions import ShellApprovalRequest, ToolSource
    from gui.memory import MemoryStores
    from gui.notify import Notifier, NotifySettingsStore, SettingsInput
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores())
    samples = []
    with http_listener() as hook:
        notifier = Notifier(NotifySettingsStore(None), base_url=lambda: "http://127.0.0.1:1")
        notifier.update(SettingsInput(webhook_url=hook.url))
        notifier.attach(engine)
        for i in range(count + 1):
            request = ShellApprovalRequest(interaction_id=uuid.uuid4().hex, turn_id="bench",
                                           source=ToolSource(tool_call_id="c", tool_name="cmd_run"),
                                           created_at=int(time.time() * 1000), title="Run a command",
                                           command=f"echo {i}", cwd="/tmp", reason="bench", operation="exec")
            started = time.perf_counter()
            await engine.interactions.request(request)
            arrived = (await hook.arrived(i + 1))[i]
            if i:  # the first one opens the HTTP connection pool: left out
                samples.append((arrived.at - started) * 1000)
        await notifier.close()
    await engine.close()
    return samples


def through_the_app(count: int) -> list[float]:
    from support.app import app_command, clean_env, free_port, wait_until_up

    shell = {"name": "bench-notify", "description": "asks once", "groups": [
        {"name": "ask", "in": {}, "out": {"text": "string"},
         "tools": '{"tool": "cmd_run", "args": {"command": "echo hi"}, "as": "text"} ;'}]}
    samples = []
    with tempfile.TemporaryDirectory() as tmp, http_listener() as hook:
        port = free_port()
        log = Path(tmp) / "app.log"
        proc = subprocess.Popen(app_command(port), cwd=ROOT, env=clean_env(Path(tmp) / "data"),
                                stdout=log.open("wb"), stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"

        def api(method: str, path: str, body: object) -> dict:
            request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method=method,
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.loads(answer.read())

        try:
            wait_until_up(proc, base, log)
            api("PUT", "/api/settings/notifications", {"webhook_url": hook.url, "on_failures": False})
            api("POST", "/api/sequences", shell)
            for i in range(count + 1):
                started = time.perf_counter()
                api("POST", "/api/runs", {"sequence": "bench-notify"})
                arrived = hook.wait_for(i + 1)[i]
                if i:
                    samples.append((arrived.at - started) * 1000)
                api("POST", f"/api/interactions/{arrived.body['interaction_id']}/respond",
                    {"kind": "approval", "decision": "denied"})
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--app", action="store_true", help="through the real app and its API")
    args = parser.parse_args()
    os.environ.pop("SEQDESK_MEMORY", None)
    samples = through_the_app(args.count) if args.app else asyncio.run(in_process(args.count))
    print(" ".join(f"{s:.1f}" for s in samples))
    print(f"median {statistics.median(samples):.1f} ms over {len(samples)} requests "
          f"({'through the app' if args.app else 'in process'})")


if __name__ == "__main__":
    main()
