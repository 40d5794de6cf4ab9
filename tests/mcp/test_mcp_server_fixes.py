"""The server's smaller promises: header values trimmed over `--http`, `logging/setLevel`, resources
for each saved sequence and run (with list-changed), completion of their names, and `seqdesk help`
into a reader that leaves early ending without a traceback.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import MCPError
from mcp.client.subscriptions import ResourcesListChanged
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_support import T, agent
from mcp_types import ResourceTemplateReference
from support.waiting import within

ROOT = Path(__file__).resolve().parents[2]
STEP = {"tool": "echo", "args": {"value": "hi"}, "as": "said"}
GREET = {"name": "greet", "groups": [{"name": "greet-g", "in": {}, "out": {"said": "string"},
                                      "tools": json.dumps(STEP) + " ;"}]}


async def test_each_saved_sequence_and_run_is_a_resource_and_the_list_says_when_it_changes():
    async with agent("auto") as (engine, client):
        async with client.listen(resources_list_changed=True) as changes:
            assert not (await client.call_tool("seq_create", GREET)).is_error
            assert isinstance(await within(anext(changes), "the list's change", timeout=T), ResourcesListChanged)
            run = await client.call_tool("seq_run", {"name": "greet"})
            assert not run.is_error and run.structured_content is not None
            assert isinstance(await within(anext(changes), "the list's change", timeout=T), ResourcesListChanged)
        run_id = run.structured_content["run_id"]
        listed = {r.uri: r for r in (await client.list_resources()).resources}
        assert {"seqdesk://sequences/greet", f"seqdesk://runs/{run_id}"} <= set(listed)
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates == {"seqdesk://sequences/{name}", "seqdesk://runs/{run_id}"}
        [doc] = (await client.read_resource("seqdesk://sequences/greet")).contents
        assert json.loads(doc.text)["groups"][0]["name"] == "greet-g"  # type: ignore[union-attr]
        [record] = (await client.read_resource(f"seqdesk://runs/{run_id}")).contents
        assert json.loads(record.text)["status"] == "succeeded"  # type: ignore[union-attr]
        with pytest.raises(MCPError) as missing:
            await client.read_resource("seqdesk://sequences/nothing-here")
        assert "no saved sequence named 'nothing-here'" in missing.value.message


async def test_sequence_names_and_run_ids_complete_from_what_was_typed():
    async with agent("auto") as (engine, client):
        for name in ("greet", "grow", "other"):
            assert not (await client.call_tool("seq_create", GREET | {
                "name": name, "groups": [{**GREET["groups"][0], "name": f"{name}-g"}]})).is_error
        names = await client.complete(ResourceTemplateReference(uri="seqdesk://sequences/{name}"),
                                      {"name": "name", "value": "GR"})
        assert (names.completion.values, names.completion.total) == (["greet", "grow"], 2)
        run = await client.call_tool("seq_run", {"name": "other"})
        run_id = run.structured_content["run_id"]  # type: ignore[index]
        ids = await client.complete(ResourceTemplateReference(uri="seqdesk://runs/{run_id}"),
                                    {"name": "run_id", "value": run_id[:4]})
        assert ids.completion.values == [run_id]


async def test_a_legacy_client_sets_the_log_level():
    async with agent("legacy") as (_, client):
        assert client.server_capabilities.logging is not None
        with pytest.warns(MCPDeprecationWarning):  # the SDK's own word on the legacy method
            answer = await client.set_logging_level("debug")
        assert answer.meta is None


def raw_call(port: int, name_header: bytes, method_header: bytes) -> bytes:
    import socket

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "seq_list", "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                                       "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    request = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
               b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
               b"Mcp-Method:%s\r\nMcp-Name:%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
               % (port, method_header, name_header, len(body))) + body
    with socket.create_connection(("127.0.0.1", port), timeout=T) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


async def test_over_http_spaces_and_tabs_around_header_values_are_trimmed(tmp_path):
    from support.app import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"SEQDESK_MEMORY": "1"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port), cwd=tmp_path,
                                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        async with asyncio.timeout(2 * T):
            assert proc.stderr is not None
            while b"Uvicorn running on http://127.0.0.1:" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
            for name, method in [(b"seq_list", b"tools/call"), (b"  seq_list  ", b" tools/call\t"),
                                 (b"\tseq_list", b"tools/call ")]:
                answer = await asyncio.to_thread(raw_call, port, name, method)
                assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
                assert b'"sequences"' in answer and b"-32020" not in answer
    finally:
        proc.terminate()
        await within(proc.wait(), "the stopped server to end")


def test_help_into_a_reader_that_leaves_early_ends_quietly():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "gui", "help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # the reader leaves, as `head` does
    assert proc.wait(timeout=T) in (0, 141)  # (before reading stderr to its end: a hang fails here, in T s)
    err = proc.stderr.read().decode()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
