"""MCP servers through the door: the engine's operations (`list_mcp_servers`, `add_mcp_server`, …)
over `gui.mcp.ManagedServers`, with real servers over stdio (`elicit_server.py`), a real manager and
the bus. What the page and the API used to do each on their own is done here once."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_support import ELICIT_SERVER, T
from support.waiting import wait_until

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.door import (
    Engine,
    McpServerChange,
    McpServerExists,
    McpServerInvalid,
    McpServerNotFound,
    McpServerSpec,
    SignInFailed,
)
from gui.core.errors import Unavailable
from gui.core.events import Event
from gui.mcp.config import MemoryMcpSettings
from gui.mcp.managed import ManagedServers
from gui.mcp.manager import McpManager

ELICIT = McpServerSpec(name="elicit", command=sys.executable, args=ELICIT_SERVER)


@dataclass
class Door:
    engine: Engine
    store: MemoryMcpSettings
    manager: McpManager
    heard: list[Event]

    async def connected(self, name: str) -> None:
        conn = self.manager.get(name)
        assert conn is not None
        state = await conn.wait_for("connected", "down", timeout=T)
        assert state.status == "connected", state.last_error


@pytest.fixture
async def door(engine: Engine) -> AsyncIterator[Door]:
    """The engine with servers kept in memory and connected by a real manager; what its bus said."""
    store = MemoryMcpSettings()
    manager = McpManager(engine.registry, lambda _c: NoopElicitationHandler(), backoff=(30.0, 30.0))
    engine.mcp_servers.attach(ManagedServers(store, manager, reconnect_wait=T))
    heard: list[Event] = []
    engine.subscribe(heard.append)
    try:
        yield Door(engine, store, manager, heard)
    finally:
        await manager.stop()


async def test_a_server_added_connects_lists_its_tools_and_every_change_is_announced(door):
    engine, store, heard = door.engine, door.store, door.heard
    view = await engine.add_mcp_server(ELICIT)
    assert view.name == "elicit" and view.describe() == f"{sys.executable} {ELICIT_SERVER[0]}"
    await door.connected("elicit")
    server = (await engine.list_mcp_servers()).get("elicit")
    assert server is not None and server.state is not None and "elicit.peek" in server.state.tools
    assert "elicit.peek" in {t.name for t in (await engine.list_tools()).tools}
    assert [c.name for c in await store.list()] == ["elicit"]
    kinds = [e.type for e in heard]
    assert "settings.changed" in kinds and "tools.changed" in kinds  # pages redraw on these, no polling
    assert heard[kinds.index("settings.changed")].data["details"] == {"added": "elicit"}

    trusted = await engine.update_mcp_server("elicit", McpServerChange(trusted=True))
    assert trusted.trusted is True and (await store.list())[0].trusted is True
    await door.connected("elicit")  # reconnected under the new trust
    said = [e.data["details"] for e in heard if e.type == "settings.changed"]
    assert said[-1] == {"trusted": "elicit", "value": True}
    unchanged = await engine.update_mcp_server("elicit", McpServerChange(trusted=True))
    assert unchanged.trusted is True and [e.data["details"] for e in heard if e.type == "settings.changed"] == said

    beside = await engine.update_mcp_server("elicit", McpServerChange(side_by_side=True))
    assert beside.side_by_side is True and (await store.list())[0].side_by_side is True
    await door.connected("elicit")  # reconnected: its tools run side by side from now on
    assert engine.registry.get("elicit.peek").concurrency_safe  # type: ignore[union-attr]
    assert [e.data["details"] for e in heard if e.type == "settings.changed"][-1] == {
        "side_by_side": "elicit", "value": True}

    assert await engine.remove_mcp_server("elicit") is True
    assert "elicit.peek" not in engine.registry  # its tools leave at once
    assert await store.list() == [] and (await engine.list_mcp_servers()).servers == []
    assert await engine.remove_mcp_server("elicit") is False


async def test_a_server_turned_off_runs_nothing_until_it_is_turned_on(door, tmp_path: Path):
    engine = door.engine
    marker = tmp_path / "it-ran"
    spec = McpServerSpec(name="writer", command=sys.executable,
                         args=["-c", f"open({str(marker)!r}, 'w').close(); import time; time.sleep(60)"],
                         enabled=False)
    view = await engine.add_mcp_server(spec)
    assert view.enabled is False and view.state is not None and view.state.status == "disabled"
    assert await engine.retry_mcp_server("writer") is False
    with pytest.raises(SignInFailed, match="turned off"):
        await engine.sign_in_mcp_server("writer", "http://127.0.0.1:1/oauth/callback")
    assert not marker.exists()
    await engine.update_mcp_server("writer", McpServerChange(enabled=True))
    await wait_until(marker.exists, timeout=T)  # the person turned it on: now its command runs


async def test_what_cannot_be_done_is_refused_in_words_and_nothing_is_kept(door):
    engine, store = door.engine, door.store
    await engine.add_mcp_server(ELICIT)
    with pytest.raises(McpServerExists, match="already there"):
        await engine.add_mcp_server(ELICIT)
    with pytest.raises(McpServerInvalid) as invalid:
        await engine.add_mcp_server(McpServerSpec(name="Bad Name", transport="http", url="ftp://x"))
    assert {e["loc"][0] for e in invalid.value.errors} == {"name"}  # each field at fault, for the form
    with pytest.raises(McpServerInvalid, match="url and headers are for http servers"):
        await engine.update_mcp_server("elicit", McpServerChange.model_validate({"headers": {"X-Key": "v"}}))
    await engine.add_mcp_server(McpServerSpec(name="web", transport="http", url="http://127.0.0.1:9/mcp"))
    with pytest.raises(McpServerInvalid, match="X-Key has no value yet"):
        await engine.update_mcp_server("web", McpServerChange.model_validate({"headers": {"X-Key": None}}))
    with pytest.raises(McpServerNotFound):
        await engine.update_mcp_server("nobody", McpServerChange(trusted=True))
    with pytest.raises(McpServerNotFound):
        await engine.retry_mcp_server("nobody")
    with pytest.raises(SignInFailed, match="only a server at a web address"):
        await engine.sign_in_mcp_server("elicit", "http://127.0.0.1:1/oauth/callback")
    assert [c.name for c in await store.list()] == ["elicit", "web"]
    assert (await store.list())[0].headers == {}


async def test_no_secret_comes_back_out(door):
    engine, store = door.engine, door.store
    spec = McpServerSpec.model_validate({"name": "web", "transport": "http", "url": "http://127.0.0.1:9/mcp",
                                         "headers": {"X-Api-Key": "h-secret-1"}, "env": {},
                                         "oauth_client_id": "console-id", "oauth_client_secret": "c-secret-2"})
    await engine.add_mcp_server(spec)
    listing = await engine.list_mcp_servers()
    text = listing.model_dump_json()
    assert "h-secret-1" not in text and "c-secret-2" not in text
    (web,) = listing.servers
    assert web.headers == ["X-Api-Key"] and web.oauth_client_secret_set is True and web.headers_missing == []
    assert (await store.list())[0].header_values() == {"X-Api-Key": "h-secret-1"}


async def test_an_engine_opened_without_servers_lists_none_and_refuses_changes(engine: Engine):
    assert (await engine.list_mcp_servers()).servers == []
    with pytest.raises(Unavailable, match="not kept by this engine"):
        await engine.add_mcp_server(ELICIT)


def test_a_name_that_does_not_fit_is_said_in_plain_words_not_as_a_pattern():
    from gui.mcp.managed import checked

    with pytest.raises(McpServerInvalid) as refused:
        checked({"name": "My Server", "command": "uvx"})
    assert str(refused.value) == "name: use 1 to 40 of a-z, 0-9, _ and - (no spaces or capitals)"
    assert [e["msg"] for e in refused.value.errors] == ["use 1 to 40 of a-z, 0-9, _ and - (no spaces or capitals)"]
