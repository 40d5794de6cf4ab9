"""Tools a server adds or removes while the app runs appear and leave, in every protocol mode.

Under 2026-07-28 (`mode="auto"` against an mcp 2.x server) the change rides a `subscriptions/listen`
stream that SeqDesk must open; under the legacy protocol it is a notification. Real server over stdio
(`live_server.py`, which adds a tool when `grow` is called) and over streamable HTTP, where a second
client grows the tool: SeqDesk hears about a change it did not cause.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest
from mcp import Client
from mcp_support import HERE, T, server_config
from support.waiting import wait_until, within

from gui.core.tools.registry import ToolContext
from gui.mcp.config import McpServerConfig

LIVE = [str(HERE / "live_server.py")]


def live_config(protocol: str, **fields: object) -> McpServerConfig:
    return server_config("live", LIVE, protocol=protocol, **fields)


def ctx(name: str) -> ToolContext:
    return ToolContext(run_id="r", tool_call_id="c", tool_name=name)


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_tool_the_server_adds_after_start_appears_and_leaves_again(connect, registry, protocol):
    conn = await connect(live_config(protocol))
    assert "live.extra" not in registry
    if protocol == "auto":
        assert conn.state.protocol == "2026-07-28"
    await registry.get("live.grow").call({"name": "extra"}, ctx("live.grow"))
    await wait_until(lambda: "live.extra" in registry, "the grown tool in the registry", timeout=T)
    assert "live.extra" in conn.state.tools
    assert await registry.get("live.extra").call({"text": "hi"}, ctx("live.extra")) == "extra says hi"
    await registry.get("live.shrink").call({"name": "extra"}, ctx("live.shrink"))
    await wait_until(lambda: "live.extra" not in registry, "the tool gone from the registry", timeout=T)
    assert "live.extra" not in conn.state.tools


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_over_http_a_tool_another_client_adds_appears_in_seqdesk(connect, registry):
    port = free_port()
    proc = await asyncio.create_subprocess_exec(sys.executable, *LIVE, "--http", str(port),
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        async with asyncio.timeout(3 * T):  # until the server says it listens (it imports for seconds when busy)
            assert proc.stderr is not None
            while b"Uvicorn running on" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
        conn = await connect(McpServerConfig.model_validate({"name": "web", "transport": "http", "url": url}))
        assert conn.state.protocol == "2026-07-28"
        assert "web.grown_elsewhere" not in registry
        async with asyncio.timeout(T), Client(url) as other:
            await other.call_tool("grow", {"name": "grown_elsewhere"})
        await wait_until(lambda: "web.grown_elsewhere" in registry, "the tool grown elsewhere in the registry",
                         timeout=T)
        await conn.stop()  # its open subscription would keep uvicorn from ending
        assert "web.grown_elsewhere" not in registry
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), T)
        except TimeoutError:
            proc.kill()
            await within(proc.wait(), "the killed server to end")


async def test_a_server_that_does_not_serve_listen_still_connects_and_works(connect, registry):
    # mcp-server-time starts with subscriptions=False and claims no listChanged: nothing is opened.
    conn = await connect(server_config("time", ["-m", "mcp_server_time"]))
    assert conn.state.status == "connected"
    assert conn.state.protocol == "2026-07-28"
    result = await registry.get("time.get_current_time").call({"timezone": "UTC"}, ctx("time.get_current_time"))
    assert result["timezone"] == "UTC"
