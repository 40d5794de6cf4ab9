"""The operations the CLI and MCP server use, on an engine in this process and through the app's API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from support.streaming import StreamingTransport
from support.waiting import within

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.asks.interactions import ApprovalResponse
from gui.core.door import (
    McpServerChange,
    McpServerExists,
    McpServerInvalid,
    McpServerNotFound,
    McpServerSpec,
    SignInFailed,
)
from gui.core.door.engine import Engine
from gui.core.errors import Refused, Unavailable
from gui.core.events import Event
from gui.mcp.config import MemoryMcpSettings
from gui.mcp.managed import ManagedServers
from gui.remote import RemoteEngine


def one_group(name: str, group: str, call: dict) -> dict:
    return {"name": name, "groups": [{"name": group, "tools": json.dumps(call) + " ;"}]}


@pytest.fixture
def engine(current_engine: Engine) -> Engine:
    return current_engine


@pytest.fixture
async def remote(engine: Engine, engine_slot: EngineSlot) -> AsyncIterator[RemoteEngine]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    ops = RemoteEngine("http://test",
                       client=httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test"))
    yield ops
    await ops.close()


async def test_deleting_through_the_app_deletes_exactly_the_sequence_named(engine, remote):
    echo = {"tool": "echo", "args": {"value": 1}}
    await engine.create(one_group("a", "ga", echo))
    await engine.create(one_group("a#b?c/d", "gb", echo))
    assert await remote.delete("a#b?c/d")
    assert [s["name"] for s in await engine.list_sequences()] == ["a"]


@pytest.mark.parametrize("where", ["local", "remote"])
async def test_a_save_as_new_over_a_saved_name_is_refused_and_replaces_nothing(engine, remote, where):
    from gui.core.sequences.problems import DslError

    echo = {"tool": "echo", "args": {"value": 1}}
    saved = (await engine.create(one_group("a", "ga", echo))).sequence
    door = engine if where == "local" else remote
    with pytest.raises(DslError) as refused:
        await door.create(one_group("a", "ga", {"tool": "echo", "args": {"value": 2}}), as_new=True)
    assert [p.code for p in refused.value.errors] == ["name-taken", "duplicate-group"]
    assert await engine.get("a") == saved
    assert (await door.create(one_group("b", "gb", echo), as_new=True)).sequence.name == "b"


async def test_an_app_that_cannot_answer_a_listing_is_unavailable(remote, engine_slot):
    engine_slot.engine = None
    with pytest.raises(Unavailable, match="not open yet"):
        await remote.list_sequences()


@pytest.mark.parametrize("where", ["local", "remote"])
async def test_a_call_reports_the_requests_of_the_runs_it_calls_through_seq_call(engine, remote, where):
    await engine.create(one_group("child", "inner", {"tool": "cmd_run", "args": {"command": "echo hi"}}))
    await engine.create(one_group("parent", "outer", {"tool": "seq_call", "args": {"name": "child"}}))
    waiting: asyncio.Queue[Event] = asyncio.Queue()

    def on_event(event: Event) -> None:
        if event.type == "tool.waiting":
            waiting.put_nowait(event)

    ops = engine if where == "local" else remote
    call = asyncio.create_task(ops.call("parent", {}, on_event))
    seen = await within(waiting.get(), "the tool to wait for a person")
    await engine.interactions.respond(seen.data["interaction_id"], ApprovalResponse(decision="approved"))
    record = await within(call, "the call's end")
    assert record.status == "succeeded"


async def test_the_tool_listing_through_the_app_is_the_engines_own(engine, remote):
    from gui.core.tools.info import ServerInfo

    engine.server_states = lambda: [ServerInfo(name="git", status="down", last_error="cannot start it")]
    assert await remote.list_tools() == await engine.list_tools()
    listing = await remote.list_tools()
    assert "cmd_run" in {t.name for t in listing.tools}
    assert listing.servers[0].last_error == "cannot start it"


@pytest.fixture
def kept(engine: Engine) -> MemoryMcpSettings:
    """The engine keeps MCP servers (in memory, connecting none)."""
    store = MemoryMcpSettings()
    engine.mcp_servers.attach(ManagedServers(store))
    return store


async def test_mcp_servers_through_the_app_are_the_engines_own_and_kept_off_until_a_person_turns_them_on(
        engine, remote, kept):
    from gui.core.tools.info import ServerInfo

    added = await remote.add_mcp_server(McpServerSpec(name="git", command="uvx", args=["mcp-server-git"],
                                                      env={"TOKEN": "t-1"}))
    assert (added.name, added.enabled, added.trusted, added.env) == ("git", False, False, ["TOKEN"])
    assert added.args == []  # the API leaves a program's arguments out: only Settings shows them
    assert (await engine.list_mcp_servers()).get("git").args == ["mcp-server-git"]
    with pytest.raises(Refused, match="is for a person"):
        await remote.update_mcp_server("git", McpServerChange(enabled=True))
    with pytest.raises(Refused, match="is for a person"):
        await remote.add_mcp_server(McpServerSpec(name="other", command="uvx", trusted=True))
    await engine.update_mcp_server("git", McpServerChange(enabled=True))  # the person, in Settings
    engine.server_states = lambda: [ServerInfo(name="git", status="down", last_error="cannot start it")]
    legacy = await remote.update_mcp_server("git", McpServerChange(protocol="legacy"))
    assert legacy.protocol == "legacy" and legacy.enabled is True
    assert legacy.state is not None and (legacy.state.status, legacy.state.last_error) == ("down", "cannot start it")
    assert [s.name for s in (await remote.list_mcp_servers()).servers] == ["git"]

    with pytest.raises(McpServerExists, match="already there"):
        await remote.add_mcp_server(McpServerSpec(name="git", command="uvx"))
    with pytest.raises(McpServerInvalid, match="a stdio server needs a command"):
        await remote.add_mcp_server(McpServerSpec(name="empty"))
    with pytest.raises(McpServerNotFound):
        await remote.update_mcp_server("nobody", McpServerChange(trusted=False))
    with pytest.raises(SignInFailed, match="only a server at a web address"):
        await remote.sign_in_mcp_server("git", "http://test/oauth/callback")
    assert await remote.retry_mcp_server("git") is False  # no connection in this engine
    assert await remote.remove_mcp_server("git") is True
    assert await remote.remove_mcp_server("git") is False
    assert await kept.list() == []


async def test_an_http_servers_secrets_go_to_the_app_and_never_come_back(engine, remote, kept):
    spec = McpServerSpec.model_validate({"name": "web", "transport": "http", "url": "https://web.example/mcp",
                                         "headers": {"X-Api-Key": "h-secret-1"}, "oauth_client_id": "id-1",
                                         "oauth_client_secret": "c-secret-2"})
    added = await remote.add_mcp_server(spec)
    assert added.headers == ["X-Api-Key"] and added.oauth_client_secret_set is True
    assert "h-secret-1" not in added.model_dump_json() and "c-secret-2" not in added.model_dump_json()
    (web,) = await kept.list()
    assert web.header_values() == {"X-Api-Key": "h-secret-1"}
    changed = await remote.update_mcp_server("web", McpServerChange.model_validate(
        {"headers": {"X-Api-Key": None, "X-Team": "blue"}, "oauth_client_secret": None}))
    assert changed.headers == ["X-Api-Key", "X-Team"] and changed.oauth_client_secret_set is False
    (web,) = await kept.list()
    assert web.header_values() == {"X-Api-Key": "h-secret-1", "X-Team": "blue"}


def test_the_remote_engine_has_every_operation_of_the_door_and_the_engine_too():
    import inspect

    from gui.core.door import Operations

    operations = {name for name in vars(Operations) if not name.startswith("_")}
    assert {"subscribe", "taken_names", "resolve"} <= operations
    for door in (RemoteEngine, Engine):
        missing = sorted(name for name in operations if not hasattr(door, name))
        assert missing == [], f"{door.__name__} lacks {missing}"
        for name in operations:
            ours, theirs = getattr(Operations, name), getattr(door, name)
            if inspect.isfunction(ours):
                assert inspect.iscoroutinefunction(ours) == inspect.iscoroutinefunction(theirs), name


@pytest.mark.parametrize("where", ["local", "remote"])
async def test_taken_names_and_a_group_run_by_its_name_are_the_engines_own_through_the_app(engine, remote, where):
    from gui.core.door import NotFoundError

    echo = {"tool": "echo", "args": {"value": 1}}
    await engine.create(one_group("a", "ga", echo))
    await engine.create(one_group("b", "gb", echo))
    door = engine if where == "local" else remote
    assert await door.taken_names() == {"a", "ga", "b", "gb"}
    assert await door.taken_names(replacing="a") == {"b", "gb"}
    sequence, group = await door.resolve("gb")
    assert sequence.name == "b" and group is not None and group.name == "gb"
    assert (await door.resolve("a"))[1] is None
    with pytest.raises(NotFoundError, match="no saved sequence or group is named 'nothing'"):
        await door.resolve("nothing")


async def test_a_subscriber_through_the_app_hears_its_events_until_it_stops(engine, remote):
    from support.waiting import wait_until

    from gui.core.events import SequenceSaved

    heard: list[Event] = []
    stop = remote.subscribe(heard.append)
    saves = iter(range(1000))

    async def a_save_heard() -> bool:
        """The app's events reach a subscriber once its stream is open: saves until one is heard."""
        if any(isinstance(e, SequenceSaved) for e in heard):
            return True
        await engine.create(one_group(f"s{next(saves)}", f"g{next(saves)}", {"tool": "echo", "args": {"value": 1}}))
        return False

    await wait_until(a_save_heard, "a save heard through the app", every=0.02)
    stop()
    await wait_until(lambda: not remote._events.relaying, "the subscription to end")
    count = len(heard)
    await engine.create(one_group("after", "g-after", {"tool": "echo", "args": {"value": 1}}))
    assert len(heard) == count


def test_a_client_of_the_app_on_this_computer_loads_no_certificates(monkeypatch):
    """The app a door reaches on this computer speaks plain HTTP: its client does not load the
    system's certificates (25–45 ms of CPU at every `seqdesk run`); a team server's
    https:// address is still checked against them."""
    import ssl

    loaded: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loaded.append(args or kwargs)
        real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    local = RemoteEngine("http://127.0.0.1:9")
    assert loaded == []
    team = RemoteEngine("https://seqdesk.example")
    assert loaded  # an https server is checked against the system's certificates
    asyncio.run(local.close())
    asyncio.run(team.close())
