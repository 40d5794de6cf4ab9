"""All configured servers together: started from settings, changed at run time, their states shown."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_support import ELICIT_SERVER, T, server_config
from support.waiting import within

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.errors import ToolError
from gui.core.tools.registry import ToolContext
from gui.mcp.client import McpConnection
from gui.mcp.config import JsonMcpSettings, McpServerConfig
from gui.mcp.manager import McpManager


def noop(_config: McpServerConfig) -> NoopElicitationHandler:
    return NoopElicitationHandler()


async def test_servers_start_together_and_each_state_says_what_happened(registry):
    manager = McpManager(registry, noop, backoff=(30.0, 30.0))
    seen: list[tuple[str, str]] = []
    manager.on_change(lambda state: seen.append((state.name, state.status)))
    try:
        await manager.start([
            server_config("elicit"),
            server_config("broken", args=["-c", "import sys; sys.exit('no such database')"]),
            server_config("off", enabled=False),
        ])
        states = {s.name: s for s in await manager.wait_settled(T)}
        assert states["elicit"].status == "connected" and "elicit.peek" in registry
        assert states["broken"].status == "down"
        assert "no such database" in states["broken"].last_error and states["broken"].retry_in == 30.0
        assert states["off"].status == "disabled" and states["off"].tools == ()
        assert ("elicit", "connecting") in seen and ("elicit", "connected") in seen
    finally:
        await manager.stop()
    assert not [n for n in registry.names() if n.startswith("elicit.")]


async def test_a_server_added_removed_or_changed_at_run_time_updates_the_palette(registry):
    manager = McpManager(registry, noop)
    try:
        conn = await manager.add(server_config("elicit"))
        await conn.wait_for("connected", timeout=T)
        assert registry.get("elicit.peek").approval == "tool"
        trusted = await manager.add(server_config("elicit", trusted=True))
        await trusted.wait_for("connected", timeout=T)
        assert manager.get("elicit") is trusted and conn.state.status == "disabled"
        assert registry.get("elicit.peek").approval == "none"
        assert await manager.remove("elicit") is True
        assert await manager.remove("elicit") is False
        assert manager.states() == [] and "elicit.peek" not in registry
    finally:
        await manager.stop()


async def test_the_servers_of_the_settings_file_are_connected_before_a_sequence_starts(registry, tmp_path):
    settings = JsonMcpSettings.in_folder(tmp_path)
    await settings.save(server_config("elicit"))
    manager = McpManager(registry, noop)
    await manager.start_from(JsonMcpSettings.in_folder(tmp_path), T)
    try:
        assert [s.status for s in manager.states()] == ["connected"]
        assert "elicit.order" in registry
    finally:
        await manager.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_an_http_server_is_reached_by_url_and_its_death_is_noticed_on_the_next_call(registry, tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {"SEQDESK_MEMORY": "1"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port), cwd=tmp_path,
                                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    config = McpServerConfig(name="desk", transport="http", url=f"http://127.0.0.1:{port}/mcp",
                             headers={"X-Client": "seqdesk-tests"})
    conn = McpConnection(config, registry, NoopElicitationHandler(), backoff=(30.0, 30.0))
    ctx = ToolContext(run_id="r", tool_call_id="r-0-0", tool_name="desk.seq_list")
    try:
        async with asyncio.timeout(2 * T):
            assert proc.stderr is not None
            while b"Uvicorn running" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
            await conn.start()
            assert (await conn.wait_for("connected", "down")).status == "connected"
            assert await registry.get("desk.seq_list").call({}, ctx) == {"sequences": []}
            proc.kill()
            await proc.wait()
            # Its change subscription (2026-07-28) is an open stream, so the death may be noticed at
            # once; else the next call notices it.
            tool = registry.get("desk.seq_list")
            if tool is not None:
                with pytest.raises(ToolError, match="MCP server 'desk'"):
                    await tool.call({}, ctx)
            down = await conn.wait_for("down")
            assert down.tools == () and "desk.seq_list" not in registry
    finally:
        await conn.stop()
        if proc.returncode is None:
            proc.kill()
            await within(proc.wait(), "the killed server to end")


async def test_a_server_that_never_answers_is_down_after_the_connect_timeout_and_stops_at_once(registry):
    silent = server_config("silent", args=["-c", "import sys; sys.stdin.read()"])
    conn = McpConnection(silent, registry, NoopElicitationHandler(), backoff=(30.0, 30.0), connect_timeout=0.5)
    try:
        await conn.start()
        state = await conn.wait_for("down", timeout=T)
        assert state.last_error.startswith("no answer within 0.5 s")
    finally:
        await within(conn.stop(), "the stop", timeout=T)
    assert conn.state.status == "disabled"


async def test_stopping_a_connection_that_is_still_connecting_does_not_wait_for_the_server(registry):
    silent = server_config("silent", args=["-c", "import sys; sys.stdin.read()"])
    conn = McpConnection(silent, registry, NoopElicitationHandler(), connect_timeout=60.0)
    await conn.start()
    await within(conn.stop(), "the stop", timeout=T)
    assert conn.state.status == "disabled"


async def test_an_unreadable_settings_file_starts_nothing_and_is_not_fatal(registry, tmp_path, caplog):
    (tmp_path / "mcp-servers.json").write_text("{not json", encoding="utf-8")
    manager = McpManager(registry, noop)
    assert await manager.start_from(JsonMcpSettings.in_folder(tmp_path), wait=T) == []
    assert "MCP servers not started" in caplog.text and "is not valid JSON" in caplog.text


def lingering(name: str, pid_file: Path) -> McpServerConfig:
    """A real server that will not end: it ignores SIGTERM and stays after its stdin closes (the SDK
    kills it after its grace periods, about 4 s)."""
    return server_config(name, args=[*ELICIT_SERVER, "--linger", "--pid-file", str(pid_file)])


def process_gone(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text(encoding="utf-8")), 0)
    except ProcessLookupError:
        return True
    return False


async def test_removing_a_server_that_will_not_exit_returns_within_its_bound_and_the_close_finishes_behind(
        registry, tmp_path):
    pid_file = tmp_path / "pid"
    manager = McpManager(registry, noop)
    try:
        conn = await manager.add(lingering("stuck", pid_file))
        assert (await conn.wait_for("connected", "down", timeout=T)).status == "connected"
        assert "stuck.peek" in registry
        # closing this server takes the SDK's grace periods (about 4 s): remove waits only `wait`
        assert await within(manager.remove("stuck", wait=0.5), "the remove", timeout=3.0) is True
        assert manager.states() == [] and not [n for n in registry.names() if n.startswith("stuck.")]
    finally:
        await within(manager.stop(), "the manager to stop")  # waits for closes still under way
    assert conn.state.status == "disabled"
    assert process_gone(pid_file)


async def test_a_remove_whose_caller_is_cancelled_still_closes_the_server(registry, tmp_path):
    pid_file = tmp_path / "pid"
    manager = McpManager(registry, noop)
    try:
        conn = await manager.add(lingering("stuck", pid_file))
        assert (await conn.wait_for("connected", "down", timeout=T)).status == "connected"
        with pytest.raises(TimeoutError):  # e.g. a page handler cancelled mid-way
            await asyncio.wait_for(manager.remove("stuck"), 0.5)
        assert "stuck.peek" not in registry
        await within(conn.wait_for("disabled", timeout=T), "the removed server to be disabled")
    finally:
        await within(manager.stop(), "the manager to stop")
    assert process_gone(pid_file)
