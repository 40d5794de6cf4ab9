"""An `Engine` in process, as most tests drive it: the fixtures that build it (and the HTTP API and
the remote door over it), and waiting for what it does (its events, what it asks a person).

Registered for the whole suite by tests/conftest.py (`pytest_plugins`). A module overrides `engine`
to put something in it first (or `app`, `client` for another API).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.context import EngineSlot
from gui.core.door.engine import Engine
from gui.core.events import Event, InteractionCreated
from gui.remote import RemoteEngine
from support.streaming import StreamingTransport


def next_pending_request(engine: Engine) -> asyncio.Future[str]:
    """The id of the next request that waits for a person (subscribe before starting the run)."""
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def listen(event: object) -> None:
        if isinstance(event, InteractionCreated) and event.record.get("status") == "pending" and not found.done():
            found.set_result(event.interaction_id)

    unsubscribe = engine.subscribe(listen)
    found.add_done_callback(lambda _: unsubscribe())
    return found


@pytest.fixture
async def current_engine() -> AsyncIterator[Engine]:
    """An in-memory engine with the built-in tools (a test's API is handed it through `engine_slot`),
    closed afterwards."""
    from gui.memory import MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores())
    yield engine
    await engine.close()


@pytest.fixture
def engine_slot(current_engine: Engine) -> EngineSlot:
    """The slot a test's API is handed: it holds `current_engine`; empty it to see a closed app."""
    return EngineSlot(current_engine)


@pytest.fixture
def engine(current_engine: Engine) -> Engine:
    return current_engine


@pytest.fixture
def app(engine: Engine, engine_slot: EngineSlot) -> FastAPI:
    """The API with no token, served in process (`engine` first, so what it saves is there)."""
    from gui.api import register_api
    from gui.api.request_gate import Served

    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    return app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


@pytest.fixture
async def remote(app: FastAPI) -> AsyncIterator[RemoteEngine]:
    """The door over HTTP, as the CLI uses it, talking to `app` (streams answered as they come)."""
    ops = RemoteEngine("http://test",
                       client=httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test"))
    yield ops
    await ops.close()


EVENT_TIMEOUT = 5.0


class Events:
    """Every bus event from the moment it is created; `next(type)` waits for the next of a type."""

    def __init__(self, engine: Engine) -> None:
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        engine.bus.subscribe(self.queue.put_nowait)

    async def next(self, type_: str) -> Event:
        async with asyncio.timeout(EVENT_TIMEOUT):
            while (event := await self.queue.get()).type != type_:
                pass
        return event
