"""Over stdio, a request the SDK cannot read is answered with an error, never left in silence."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from support.waiting import within

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
TOOLS = '{\\"tool\\":\\"echo\\",\\"args\\":{\\"value\\":1}} ;'
BAD_NAME = ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"seq_create","arguments":'
            '{"name":"bad\\ud800name","groups":[{"name":"g1","in":{},"out":{},"tools":"' + TOOLS + '"}]}}}')
LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "seq_list", "arguments": {}}}


async def test_a_lone_surrogate_in_a_seq_create_name_gets_an_error_and_saves_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "SEQDESK_"))} | {"SEQDESK_MEMORY": "1"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", cwd=tmp_path, env=env,
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    async def send(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")
        await proc.stdin.drain()

    async def answer() -> dict:
        return json.loads(await within(proc.stdout.readline(), "seqdesk mcp's answer"))

    try:
        await send(json.dumps(INIT))
        assert (await answer())["id"] == 1
        await send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        await send(BAD_NAME)
        refused = await answer()
        assert refused["id"] == 2
        assert "arguments.name" in refused["error"]["message"]
        assert "not valid Unicode" in refused["error"]["message"]
        await send(json.dumps(LIST))
        listed = await answer()
        assert listed["id"] == 3 and listed["result"]["structuredContent"] == {"sequences": []}
    finally:
        proc.kill()
        await within(proc.wait(), "the killed seqdesk mcp to end")
