"""Shared pieces of the MCP tests: real servers over stdio, connections that are always stopped.

Every wait is bounded; the test server is `elicit_server.py` next to this file, and the third-party
server is `mcp-server-time` from PyPI.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client

from gui.core.asks.elicitation import ElicitationHandler, NoopElicitationHandler
from gui.core.door.engine import Engine
from gui.core.events import Event
from gui.core.tools.registry import Registry
from gui.mcp.client import McpConnection
from gui.mcp.config import McpServerConfig
from gui.mcp.server import build_server
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools, default_registry

T = 15.0  # bound of every wait (a stdio server starts in about 0.7 s)
HERE = Path(__file__).parent
ELICIT_SERVER = [str(HERE / "elicit_server.py")]
TIME_SERVER = ["-m", "mcp_server_time"]


def server_config(name: str = "elicit", args: list[str] | None = None, **fields: object) -> McpServerConfig:
    return McpServerConfig.model_validate(
        {"name": name, "command": sys.executable, "args": ELICIT_SERVER if args is None else args, **fields})


@pytest.fixture
def registry() -> Registry:
    return Registry(builtin_tools())


@pytest.fixture
def engine(registry: Registry) -> Engine:
    return compose_engine(registry, MemoryStores(), retry_backoff=0.01)


@pytest.fixture
async def connect(registry: Registry) -> AsyncIterator[Callable[..., object]]:
    """`await connect(config, handler)`: a started, connected connection; stopped after the test."""
    made: list[McpConnection] = []

    async def _connect(config: McpServerConfig, handler: ElicitationHandler | None = None,
                       backoff: tuple[float, float] = (30.0, 30.0)) -> McpConnection:
        conn = McpConnection(config, registry, handler or NoopElicitationHandler(), backoff=backoff)
        made.append(conn)
        await conn.start()
        state = await conn.wait_for("connected", "down", timeout=T)
        assert state.status == "connected", state.last_error
        return conn

    yield _connect
    await asyncio.gather(*(c.stop() for c in made))


def expect(engine: Engine, kind: str, where: Callable[[Event], bool] = lambda e: True) -> asyncio.Future[Event]:
    """A future for the next event of `kind` on the engine's bus: create it before causing the event."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Event] = loop.create_future()

    def on_event(event: Event) -> None:
        if event.type == kind and where(event) and not future.done():
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(event))

    unsubscribe = engine.bus.subscribe(on_event)
    future.add_done_callback(lambda _: unsubscribe())
    return future


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


@asynccontextmanager
async def agent(mode: str) -> AsyncIterator[tuple[Engine, Client]]:
    """An engine with in-memory stores and an MCP client talking to its server in process.

    A context manager, not a fixture: the SDK's scopes must be left by the task that entered them. The
    whole body is bounded (`T`): a body still going when it runs out fails with an AssertionError that
    says so (chained from the TimeoutError), as `support.waiting.within` does, never a bare TimeoutError."""
    engine = compose_engine(default_registry(), MemoryStores())

    async def open_engine() -> Engine:
        return engine

    try:
        async with asyncio.timeout(T) as bound, Client(build_server(open_engine), mode=mode) as client:
            yield engine, client
    except TimeoutError as timeout:
        if not bound.expired():
            raise  # the test's own TimeoutError, not this bound
        raise AssertionError(f"the MCP agent's session did not finish within {T:g} s "
                             "(the bound on the whole test body, set by mcp_support.agent)") from timeout
    finally:
        await engine.close()
