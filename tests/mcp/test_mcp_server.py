"""`seqdesk mcp`: an agent lists, creates (fixing its mistakes from one error) and runs sequences.

The spawned server (`python -m gui mcp`) runs with in-memory stores, so nobody could answer its
approvals from outside: the approval flow is tested in process, where the test plays the person
answering in the inbox. With the TinyDB store the same flow can be
checked through a temporary SEQDESK_DATA once the storage layer lands.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp_support import T, agent, expect, text_of
from support.agent import greet, person_awaited, seqdesk_mcp
from support.app import process_gone
from support.waiting import wait_until, within

from gui.core.asks.interactions import ApprovalResponse, ShellApprovalRequest
from gui.core.sequences.help import EXAMPLE
from gui.second_launch import read_endpoint

NINE = {"seq_list", "seq_create", "seq_run", "seq_call", "seq_when_call", "seq_delete", "seq_help", "seq_tools",
        "seq_resume"}
# The help's example with a deliberate mistake: dig-deeper's tool writes a slot its "out" does not declare.
MISTAKE = EXAMPLE.replace('\\"as\\":\\"detail\\"', '\\"as\\":\\"details\\"')
ROOT = Path(__file__).resolve().parents[2]


def create_args(text: str) -> dict:
    doc = json.loads(text)
    return {"name": doc["name"], "description": doc["description"], "groups": doc["groups"]}


def spawned(tmp_path: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp", *extra], cwd=str(tmp_path),
                                 env={"SEQDESK_MEMORY": "1", "PYTHONPATH": str(ROOT)})


async def test_an_agent_fixes_its_sequence_from_one_readable_error_and_runs_it(tmp_path):
    async with asyncio.timeout(3 * T), Client(spawned(tmp_path)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == NINE
        assert all("seq_help" in t.description for n, t in tools.items() if n != "seq_help")
        assert "exactly one" in tools["seq_create"].description
        assert "A COMPLETE EXAMPLE YOU CAN COPY" in text_of(await client.call_tool("seq_help", {}))

        wrong = await client.call_tool("seq_create", create_args(MISTAKE))
        assert wrong.is_error
        message = text_of(wrong)
        assert "1 problem" in message
        assert "- groups[1].tools[0].as: slot 'details' is not declared in out" in message
        assert message.count("(undeclared-slot)") == 1

        saved = await client.call_tool("seq_create", create_args(EXAMPLE))
        assert not saved.is_error, text_of(saved)
        assert saved.structured_content["signature"]["inputs"] == {"host": "string"}
        listed = (await client.call_tool("seq_list", {})).structured_content["sequences"]
        assert [s["name"] for s in listed] == ["check-three-nodes"]

        called = await client.call_tool("seq_call", {"name": "dig-deeper", "args": {"host": "node-a"}})
        summary = called.structured_content
        assert (summary["status"], summary["outputs"]) == ("succeeded", {"detail": "checked node-a"})


@pytest.fixture(params=["auto", "legacy"])
def mode(request) -> str:
    return request.param


async def create(client: Client, name: str, tools: str, **group: object) -> None:
    doc = {"name": name, "description": "", "groups": [
        {"name": f"{name}-g", "in": {}, "out": {}, "tools": tools, **group}]}
    result = await client.call_tool("seq_create", doc)
    assert not result.is_error, text_of(result)


async def test_a_run_started_by_an_agent_waits_for_approval_in_the_inbox(mode, tmp_path):
    async with agent(mode) as (engine, client):
        step = {"tool": "cmd_run", "args": {"command": "echo approved-by-a-person", "cwd": str(tmp_path)}, "as": "said"}
        await create(client, "greet", json.dumps(step) + " ;", out={"said": "string"})
        asked = expect(engine, "interaction.created")
        run = asyncio.create_task(client.call_tool("seq_run", {"name": "greet", "args": {}}))
        await within(asked, "the approval request", timeout=T)
        [pending] = await engine.interactions.store.list("pending")
        assert isinstance(pending.request, ShellApprovalRequest)
        assert pending.request.command == "echo approved-by-a-person"
        assert pending.request.sequence_name == "greet"
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        result = await within(run, "the agent's call to end", timeout=T)
        assert not result.is_error, text_of(result)
        summary = result.structured_content
        assert summary["status"] == "succeeded"
        assert summary["outputs"] == {"said": "approved-by-a-person"}
        assert summary["groups"][0]["tools"][0]["status"] == "succeeded"


async def test_a_denied_approval_ends_the_run_failed_and_says_why(mode):
    async with agent(mode) as (engine, client):
        await create(client, "risky", '{"tool":"cmd_run","args":{"command":"true"}} ;')
        asked = expect(engine, "interaction.created")
        run = asyncio.create_task(client.call_tool("seq_run", {"name": "risky"}))
        event = await within(asked, "the approval request", timeout=T)
        await engine.interactions.respond(event.data["interaction_id"],
                                          ApprovalResponse(decision="denied", reason="not today"))
        summary = (await within(run, "the agent's call to end", timeout=T)).structured_content
        assert summary["status"] == "failed"
        assert "denied by the user: not today" in summary["groups"][0]["tools"][0]["error"]


async def test_groups_and_file_are_exactly_one(mode, tmp_path):
    async with agent(mode) as (_, client):
        both = await client.call_tool("seq_create", {"name": "x", "groups": [], "file": "/nowhere.json"})
        neither = await client.call_tool("seq_create", {"name": "x"})
        for result in (both, neither):
            assert result.is_error and "(groups-and-file)" in text_of(result)
        path = tmp_path / "example.json"
        path.write_text(EXAMPLE, encoding="utf-8")
        from_file = await client.call_tool("seq_create", {"file": str(path)})
        assert from_file.structured_content["name"] == "check-three-nodes"


async def test_an_unknown_tool_warning_tells_an_agent_where_the_tools_are(mode):
    async with agent(mode) as (_, client):
        doc = {"name": "typo", "description": "", "groups": [
            {"name": "typo-g", "tools": '{"tool":"ecoh","args":{"value":"hi"}} ;'}]}
        saved = await client.call_tool("seq_create", doc)
        assert not saved.is_error, text_of(saved)
        [warning] = saved.structured_content["warnings"]
        assert "did you mean 'echo'?" in warning and "seq_tools lists the tools available now" in warning


async def test_groups_given_as_json_text_are_read_as_the_array(mode):
    async with agent(mode) as (_, client):
        groups = json.dumps(json.loads(EXAMPLE)["groups"])
        result = await client.call_tool("seq_create", {"name": "as-text", "groups": groups})
        assert not result.is_error, text_of(result)


async def test_run_problems_are_sentences_an_agent_can_act_on(mode):
    async with agent(mode) as (_, client):
        await client.call_tool("seq_create", create_args(EXAMPLE))
        missing = await client.call_tool("seq_run", {"name": "nope"})
        assert missing.is_error and "no saved sequence named 'nope'" in text_of(missing)
        group = await client.call_tool("seq_run", {"name": "dig-deeper"})
        assert group.is_error and "use seq_call" in text_of(group)
        bad_args = await client.call_tool("seq_run", {"name": "check-three-nodes", "args": {"hots": "a"}})
        assert bad_args.is_error
        assert "'host' is missing" in text_of(bad_args) and "'hots' is not an input" in text_of(bad_args)


async def test_when_call_runs_only_when_its_condition_holds(mode):
    async with agent(mode) as (_, client):
        await client.call_tool("seq_create", create_args(EXAMPLE))
        skipped = await client.call_tool("seq_when_call", {"name": "dig-deeper", "when": '$args.host == "b"',
                                                           "args": {"host": "a"}})
        assert skipped.structured_content == {"called": False, "reason": 'the condition `$args.host == "b"` is false'}
        ran = await client.call_tool("seq_when_call", {"name": "dig-deeper", "when": '$args.host == "a"',
                                                       "args": {"host": "a"}})
        assert ran.structured_content["outputs"] == {"detail": "checked a"}
        broken = await client.call_tool("seq_when_call", {"name": "dig-deeper", "when": "$args.host ==",
                                                          "args": {"host": "a"}})
        assert broken.is_error and "cannot be used" in text_of(broken)


async def test_delete_removes_a_sequence_and_says_when_there_is_none(mode):
    async with agent(mode) as (_, client):
        await client.call_tool("seq_create", create_args(EXAMPLE))
        assert (await client.call_tool("seq_delete", {"name": "check-three-nodes"})).structured_content == {
            "deleted": "check-three-nodes"}
        again = await client.call_tool("seq_delete", {"name": "check-three-nodes"})
        assert again.is_error and "no saved sequence" in text_of(again)
        assert (await client.call_tool("seq_list", {})).structured_content == {"sequences": []}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_http_mode_serves_the_same_tools_on_localhost(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"SEQDESK_MEMORY": "1"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port), cwd=tmp_path,
                                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        async with asyncio.timeout(2 * T):
            assert proc.stderr is not None
            while b"Uvicorn running on http://127.0.0.1:" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                assert {t.name for t in (await client.list_tools()).tools} == NINE
    finally:
        proc.terminate()
        await within(proc.wait(), "the stopped server to end")


def test_the_mcp_command_parses_its_port():
    import argparse

    from gui.cli.mcp import add_mcp_command, run_mcp

    parser = argparse.ArgumentParser(prog="seqdesk")
    add_mcp_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["mcp", "--http", "8765"])
    assert (args.http, args.func) == (8765, run_mcp)
    assert parser.parse_args(["mcp"]).http is None


def test_seqdesk_offers_the_mcp_command():
    pytest.importorskip("gui.cli.run", reason="`seqdesk mcp` is wired in gui/cli/run.py")
    from gui.cli import build_parser

    args = build_parser().parse_args(["mcp"])
    assert args.command == "mcp"


async def test_an_agents_run_waits_in_the_data_folders_inbox_until_a_person_answers(tmp_path):
    """With a real data folder (TinyDB): the approval is on disk before the agent hears it waits."""
    data = tmp_path / "data"
    params = seqdesk_mcp(data, tmp_path)
    waiting, on_progress = person_awaited()
    async with asyncio.timeout(3 * T):
        async with Client(params) as client:
            assert not (await client.call_tool("seq_create", greet("echo from-the-agent"))).is_error
            endpoint = read_endpoint(data)  # the app started in the background for the agent
            assert endpoint is not None
            app_pid = int(endpoint["pid"])
            run = asyncio.create_task(client.call_tool("seq_run", {"name": "greet"},
                                                       progress_callback=on_progress))
            await waiting.wait()
            [pending] = stored_interactions(data)
            assert (pending["status"], pending["request"]["command"]) == ("pending", "echo from-the-agent")
            assert pending["request"]["sequence_name"] == "greet"
            run.cancel()  # the agent's client gives up waiting
            await asyncio.gather(run, return_exceptions=True)
        # the agent went away, but its run goes on in the app started for it: the person may still answer
        async with httpx.AsyncClient(base_url=str(endpoint["url"])) as app:
            still = (await app.get("/api/interactions", params={"status": "pending"})).json()
            assert [item["request"]["interaction_id"] for item in still] == [pending["request"]["interaction_id"]]
            answer = await app.post(f"/api/interactions/{pending['request']['interaction_id']}/respond",
                                    json={"kind": "approval", "decision": "approved"})
            assert answer.status_code == 200, answer.text
        # then nothing runs or waits there, and the app started in the background for the agent ends
        await wait_until(lambda: process_gone(app_pid), "the agent's app to end", timeout=6 * T)
        [ended] = stored_interactions(data, history=True)
        assert (ended["status"], ended["result"]["response"]["decision"]) == ("resolved", "approved")
        from gui.runtime import open_store_runtime

        runtime = await open_store_runtime(data)
        try:
            [record] = await runtime.engine.list_runs()
            assert (record.status, record.outputs) == ("succeeded", {"said": "from-the-agent"})
        finally:
            await runtime.close()


def stored_interactions(folder: Path, history: bool = False) -> list[dict]:
    """The interactions as stored on disk: the hot ones (snapshot and journal), and history's too."""
    from gui.store.journal import stored_documents

    found = stored_documents(folder / "interactions.json", "interactions")
    for path in sorted((folder / "history").glob("interactions-*[0-9].json")) if history else []:
        for doc_id, doc in json.loads(path.read_text(encoding="utf-8")).get("interactions", {}).items():
            found.setdefault(doc_id, doc)  # one moving to history at this moment: the hot copy counts
    return list(found.values())


async def test_a_sequence_over_the_size_limit_is_refused_with_a_sentence_naming_the_limit(mode, tmp_path):
    from gui.core.sequences.limits import MAX_GROUPS

    groups = [{"name": f"big-{g}", "tools": '{"tool":"echo","args":{"value":1}} ;'} for g in range(MAX_GROUPS + 1)]
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"name": "huge", "groups": groups[:1], "description": "x" * 3_000_000}),
                    encoding="utf-8")
    async with agent(mode) as (engine, client):
        many = await client.call_tool("seq_create", {"name": "big", "groups": groups})
        assert many.is_error
        assert f"the sequence has {MAX_GROUPS + 1} groups, more than the {MAX_GROUPS} one sequence may have" \
               in text_of(many)
        huge = await client.call_tool("seq_create", {"file": str(path)})
        assert huge.is_error and "the sequence is 2.9 MB of JSON, more than the 2 MB" in text_of(huge)
        assert await engine.list_sequences() == []
