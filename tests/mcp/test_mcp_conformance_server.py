"""The official conformance suite's server scenarios (`@modelcontextprotocol/conformance`, npm) against
`seqdesk mcp --http PORT` with a data folder of its own (one saved sequence and one run, so the resource
scenarios have something to read), and the app started in the background for it (stopped afterwards by
the pid its endpoint file names).

Covered, every check passing: server-initialize, server-session-lifecycle, logging-set-level, ping,
completion-complete, tools-list, server-sse-multiple-streams, resources-list, sep-2164-resource-not-found,
prompts-list, dns-rebinding-protection, caching, http-header-validation,
input-required-result-unsupported-methods, input-required-result-ignore-extra-params; and
server-stateless with every check but the two that need the suite's own diagnostic tool
(`test_missing_capability`). The other scenarios call the tools, prompts and resources of the suite's
reference server (`test_image_content`, `slow_compute`, `greet`, `test://static-text`, …), which SeqDesk
does not have: they do not apply.

The suite (verified with 0.2.0-alpha.12) needs Node 22. Give the command that starts it in
MCP_CONFORMANCE_CLI (for example `node22 node_modules/@modelcontextprotocol/conformance/dist/index.js`;
`.ci/run` installs both and sets it); without it these are skipped, and under CI=true they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.app import free_port, process_gone
from support.waiting import wait_until_sync

from gui.second_launch import read_endpoint

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    "server-initialize", "server-session-lifecycle", "logging-set-level", "ping", "completion-complete",
    "tools-list", "server-sse-multiple-streams", "resources-list", "sep-2164-resource-not-found", "prompts-list",
    "dns-rebinding-protection", "caching", "http-header-validation", "input-required-result-unsupported-methods",
    "input-required-result-ignore-extra-params", "server-stateless",
]
# Checks that need a tool of the suite's reference server: not applicable to SeqDesk's.
NEEDS_THE_SUITES_TOOLS = {"sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400"}
STEP = {"tool": "echo", "args": {"value": "hi"}, "as": "said"}
GREET = {"name": "greet", "groups": [{"name": "greet-g", "in": {}, "out": {"said": "string"},
                                      "tools": json.dumps(STEP) + " ;"}]}


@pytest.fixture(scope="module")
def server(conformance_cli: list[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`seqdesk mcp --http PORT` over a new data folder with one sequence and one run; its URL."""
    data = tmp_path_factory.mktemp("conformance") / "data"
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "SEQDESK_"))},
           "SEQDESK_DATA": str(data), "PYTHONPATH": str(ROOT)}  # not the tests' SEQDESK_MEMORY: a real folder
    process = subprocess.Popen([sys.executable, "-m", "gui", "mcp", "--http", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_sync(lambda: read_endpoint(data) is not None and _answers(url), "seqdesk mcp to listen", timeout=60)
        endpoint = read_endpoint(data)
        assert endpoint is not None
        with httpx.Client(base_url=str(endpoint["url"]), timeout=30) as app:  # the app started for it
            assert app.post("/api/sequences", json=GREET).status_code == 201
            run = app.post("/api/runs", json={"sequence": "greet"}).json()["run_id"]
            wait_until_sync(lambda: app.get(f"/api/runs/{run}").json()["status"] == "succeeded", "the run to end")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        endpoint = read_endpoint(data)
        if endpoint is not None:  # the app started in the background for the folder: stopped by its pid
            app_pid = int(endpoint["pid"])
            if not process_gone(app_pid):
                os.kill(app_pid, 15)
            wait_until_sync(lambda: process_gone(app_pid), "the app to end", timeout=30)


def _answers(url: str) -> bool:
    """Whether the server answers (a ping without a session: refused, but answered)."""
    try:
        httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=2)
    except httpx.HTTPError:
        return False
    return True


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_conformance_server_scenario_passes_against_seqdesk_mcp(scenario, conformance_cli, server, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    done = subprocess.run([*conformance_cli, "server", "--url", server, "--scenario", scenario, "-o", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=240)
    said = done.stdout + done.stderr
    [checks_file] = tmp_path.glob("*/checks.json")
    checks = json.loads(checks_file.read_text(encoding="utf-8"))
    failed = {c["id"]: c.get("errorMessage") for c in checks if c["status"] == "FAILURE"}
    assert checks and set(failed) <= NEEDS_THE_SUITES_TOOLS, (failed, said[-4000:])
    if not failed:
        assert done.returncode == 0, said[-4000:]
