"""Benchmark: an agent with a 60 s request timeout whose run waits 5 minutes for a person.

Run it as a script (`MCP_TS_SDK=FOLDER python tests/bench/bench_agent_waits.py [--timeout 60] [--wait 300]`):
the real app on a fresh data folder, `seqdesk mcp --http` going through it (progress every 10 s, its
default), and the TypeScript SDK's client (`tests/mcp/ts_agent.cjs`, `resetTimeoutOnProgress`) as the
agent. The script answers the approval in the app after `--wait` seconds and prints whether the agent got
the run's result, how many progress notifications it heard, the longest silence between two, and the
time from the answer to the result. Exits 1 when the agent did not get a succeeded result.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.app import clean_env, free_port, running_app  # noqa: E402

STEP = {"tool": "cmd_run", "args": {"command": "echo after-five-minutes"}, "as": "said"}
DOC = {"name": "bench-late", "groups": [{"name": "bench-late-g", "in": {}, "out": {"said": "string"},
                                         "tools": json.dumps(STEP) + " ;"}]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=60.0, help="the agent's request timeout, seconds")
    parser.add_argument("--wait", type=float, default=300.0, help="how long the person takes, seconds")
    opts = parser.parse_args()
    modules = Path(os.environ.get("MCP_TS_SDK", "")) / "node_modules"
    if not (modules / "@modelcontextprotocol" / "sdk").is_dir():
        print("MCP_TS_SDK must name a folder whose node_modules holds @modelcontextprotocol/sdk")
        return 2
    with tempfile.TemporaryDirectory() as tmp, running_app(Path(tmp), Path(tmp) / "data") as app:
        port = free_port()
        env = clean_env(app.data_dir) | {"PYTHONPATH": str(ROOT)}
        server = subprocess.Popen([sys.executable, "-m", "gui", "mcp", "--http", str(port)], cwd=tmp, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            assert server.stderr is not None
            while b"Uvicorn running" not in (line := server.stderr.readline()):
                assert line, "seqdesk mcp ended before it listened"
            agent = subprocess.Popen(["node", str(ROOT / "tests" / "mcp" / "ts_agent.cjs"),
                                      f"http://127.0.0.1:{port}/mcp", json.dumps(DOC), str(int(opts.timeout * 1000))],
                                     env={**os.environ, "NODE_PATH": str(modules)}, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            heard: list[float] = []
            last: list[str] = []

            def read() -> None:
                assert agent.stdout is not None
                for text in agent.stdout:
                    last.append(text)
                    if text.startswith('{"progress"'):
                        heard.append(time.monotonic())

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            started = time.monotonic()
            pending: list[dict] = []
            while not pending:
                _, pending = app.api("GET", "/api/interactions?status=pending")
                time.sleep(0.2)  # a script's poll, not a test
            time.sleep(max(0.0, opts.wait - (time.monotonic() - started)))  # the person takes their time
            answered = time.monotonic()
            app.api("POST", f"/api/interactions/{pending[0]['request']['interaction_id']}/respond",
                    {"kind": "approval", "decision": "approved"})
            code = agent.wait(timeout=opts.timeout + 60)
            reader.join(timeout=5)
            done = time.monotonic()
            gaps = [b - a for a, b in zip([started, *heard], heard, strict=False)]
            result = json.loads(last[-1]) if code == 0 and last else None
            ok = bool(result) and result.get("structuredContent", {}).get("status") == "succeeded"
            print(f"agent exit {code}; waited {answered - started:.0f} s for the person; result: "
                  f"{'succeeded' if ok else 'NOT received'}; progress heard {len(heard)} times; longest silence "
                  f"{max(gaps, default=0):.1f} s (timeout {opts.timeout:g} s); "
                  f"answer to result {done - answered:.2f} s")
            if not ok and agent.stderr is not None:
                print(agent.stderr.read()[-2000:])
            return 0 if ok else 1
        finally:
            server.terminate()
            server.wait(timeout=15)


if __name__ == "__main__":
    raise SystemExit(main())
