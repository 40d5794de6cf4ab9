"""The app under NiceGUI's simulated `user`: what its composition root built, waiting for the engine
it opens at start-up, driving that engine (runs that ask, requests the inbox shows, bus events), and
reading the page (an element by its marker, where the page sends the browser).

`engine_open` is autouse in every test module that imports it (`from support.ui import engine_open`).
Nothing sleeps: the page is awaited with `should_see(retries=R)`, the engine with bus events.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from nicegui import app
from nicegui.testing import User

from gui.app import context_of
from gui.context import AppContext
from gui.core.asks.interactions import ShellApprovalRequest, ToolSource
from gui.core.door.engine import Engine
from gui.core.events import Event
from gui.mcp.config import McpSettingsStore
from support.builders import tools
from support.waiting import within

R = 50  # retries of should_see: 5 s


def app_ctx() -> AppContext:
    """What the composition root built for the app under test (its engine, runtime, notices)."""
    return context_of(app)


@pytest.fixture(autouse=True)
async def engine_open(user: User) -> None:
    """App start-up opens the engine in a task of its own: wait for it (bounded) before acting."""
    await app_ctx().wait_open(timeout=5)


def mcp_store() -> McpSettingsStore:
    """Where the app under test keeps its MCP servers (to check what the door wrote)."""
    store = app_ctx().runtime.mcp_settings if app_ctx().runtime is not None else None
    assert store is not None, "the app under test keeps no MCP servers"
    return store


def engine() -> Engine:
    return app_ctx().engine


def now_ms() -> int:
    return int(time.time() * 1000)


def expect(type_: str, predicate: Callable[[Event], bool] = lambda e: True) -> asyncio.Future[Event]:
    """A future for the next bus event of `type_` (subscribe before acting)."""
    future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

    def on(event: Event) -> None:
        if event.type == type_ and predicate(event) and not future.done():
            future.set_result(event)

    unsubscribe = engine().bus.subscribe(on)
    future.add_done_callback(lambda _: unsubscribe())
    return future


async def wait(future: asyncio.Future[Event], timeout: float = 10) -> Event:
    return await within(future, "the awaited bus event", timeout=timeout)


async def start_command_run(command: str = "echo hello", name: str = "inbox-seq") -> str:
    """A run of a one-step sequence whose `cmd_run` waits in the inbox: its id, once it asks."""
    doc = {"name": name, "groups": [{"name": f"{name}-g", "in": {}, "out": {"said": "string"},
                                     "tools": tools({"tool": "cmd_run", "args": {"command": command}, "as": "said"})}]}
    await engine().create(doc)
    created = expect("interaction.created")
    record = await engine().start(name)
    await wait(created)
    return record.run_id


def common(iid: str | None = None, **extra) -> dict:
    return {"interaction_id": iid or uuid.uuid4().hex, "turn_id": "run-123456789", "created_at": now_ms(),
            "sequence_name": "Nightly", "group_name": "Checks", **extra}


def shell(iid: str | None = None, **extra) -> ShellApprovalRequest:
    return ShellApprovalRequest(**common(iid, **extra), source=ToolSource(tool_call_id="c1", tool_name="cmd_run"),
                                title="Run a command", command="rm -rf build/", cwd="/tmp/project",
                                reason="clean before building", operation="exec")


WAIT = 300  # retries of should_see (0.1 s each at most): a server starts in about a second


def only(user: User, marker: str) -> Any:
    (element,) = user.find(marker=marker).elements
    return element


def browser_of(user: User) -> Callable[[], Awaitable[str]]:
    """Where the page sends the browser (to another site: the test follows it itself)."""
    went: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def to(target: Any, new_tab: bool = False) -> None:
        if not went.done():
            went.set_result(str(target))

    user.navigate.to = to  # type: ignore[method-assign]

    async def opened() -> str:
        return await within(went, "the page to navigate", timeout=15)

    return opened
