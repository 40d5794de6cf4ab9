"""Real third-party servers from PyPI: `mcp-server-fetch` (a read-only tool that reaches outside, and a
prompt) and `mcp-server-git` (its tools are named `git_status`, so the step is `git.git_status`).
Nothing here touches the network: the fetch tool and prompt are only listed, never run."""

from __future__ import annotations

import json
import subprocess
from importlib.util import find_spec
from pathlib import Path

import pytest
from mcp_support import server_config
from support.waiting import within

# found, not imported: importing the servers took a second of every worker's collection
pytestmark = pytest.mark.skipif(find_spec("mcp_server_fetch") is None or find_spec("mcp_server_git") is None,
                                reason="mcp-server-fetch and mcp-server-git are not installed")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_the_fetch_servers_open_world_tool_asks_even_when_the_server_is_trusted(connect, registry, protocol):
    await connect(server_config("fetch", ["-m", "mcp_server_fetch"], protocol=protocol, trusted=True))
    tool = registry.get("fetch.fetch")
    assert tool is not None and tool.read_only_hint and tool.open_world_hint
    assert tool.approval == "tool"
    prompt = registry.get("fetch.prompt/fetch")
    assert prompt is not None and prompt.approval == "tool"  # its prompt fetches too: it asks
    assert "url" in prompt.input_schema()["required"]


async def test_git_status_runs_in_a_sequence_and_a_guessed_name_gets_the_real_one(connect, engine, tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("x", encoding="utf-8")
    await connect(server_config("git", ["-m", "mcp_server_git", "--repository", str(repo)], trusted=True))
    guessed = {"name": "guess", "groups": [{"name": "guess-g", "in": {}, "out": {}, "missing": "skip",
                                            "tools": '{"tool":"git.status","args":{}} ;'}]}
    saved = await engine.create(guessed)
    assert "did you mean 'git.git_status'" in str(saved.warnings[0])
    step = {"tool": "git.git_status", "args": {"repo_path": str(repo)}, "as": "status"}
    await engine.create({"name": "status", "groups": [
        {"name": "status-g", "in": {}, "out": {"status": "string"}, "tools": json.dumps(step) + " ;"}]})
    record = await within(engine.run("status"), "the run's end")  # trusted, read-only, local: it runs
    assert record.status == "succeeded", record.to_summary_json()
    assert "new.txt" in record.outputs["status"]
