"""A server that asks with `ctx.elicit` (the older request style) over streamable HTTP: under the
legacy protocol the question reaches the person and the answer goes back; under `auto` (2026-07-28,
which has no server-to-client requests) the call fails with the server's own words, never a hang."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from mcp_support import HERE, T
from support.waiting import within

from gui.core.asks.elicitation import FixedElicitationHandler
from gui.core.asks.interactions import ElicitationResponse
from gui.core.errors import ToolError
from gui.core.tools.registry import ToolContext
from gui.mcp.config import McpServerConfig

LIVE = [str(HERE / "live_server.py")]


@pytest.fixture
async def live_url() -> AsyncIterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = await asyncio.create_subprocess_exec(sys.executable, *LIVE, "--http", str(port),
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        async with asyncio.timeout(T):
            assert proc.stderr is not None
            while b"Uvicorn running on" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        await within(proc.wait(), "the killed server to end")


def ctx() -> ToolContext:
    return ToolContext(run_id="r", tool_call_id="r-0-0", tool_name="web.ask_name")


async def test_ctx_elicit_over_http_in_the_legacy_protocol_reaches_the_person(connect, registry, live_url):
    handler = FixedElicitationHandler(ElicitationResponse.accept({"name": "Ada"}))
    conn = await connect(McpServerConfig(name="web", transport="http", url=live_url, protocol="legacy"), handler)
    assert conn.state.protocol == "2025-11-25"
    assert await registry.get("web.ask_name").call({}, ctx()) == "hello Ada"
    [request] = handler.requests
    assert request.message == "What is your name?" and [f.name for f in request.fields] == ["name"]
    await conn.stop()


async def test_ctx_elicit_under_auto_fails_with_a_reason_instead_of_hanging(connect, registry, live_url):
    handler = FixedElicitationHandler(ElicitationResponse.accept({"name": "Ada"}))
    conn = await connect(McpServerConfig(name="web", transport="http", url=live_url), handler)
    assert conn.state.protocol == "2026-07-28"
    with pytest.raises(ToolError) as failed:
        await within(registry.get("web.ask_name").call({}, ctx()), "the call's refusal")
    assert str(failed.value).startswith("web.ask_name: the server asks its question the older way")
    assert "set the protocol of 'web' to legacy in Settings" in str(failed.value)
    assert handler.requests == []
    await conn.stop()
