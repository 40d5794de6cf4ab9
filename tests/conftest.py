"""Test-wide settings: the app's entry file runs with in-memory stores unless a test says otherwise."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("SEQDESK_MEMORY", "1")

if TYPE_CHECKING:
    import httpx
    from fastapi import FastAPI

    from gui.context import EngineSlot
    from gui.core.door.engine import Engine
    from gui.remote import RemoteEngine


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
    from gui.context import EngineSlot

    return EngineSlot(current_engine)


# The HTTP API over `engine_slot`, as the API tests drive it; a module overrides `engine` to put
# something in it first (or `app`, `client` for another API).
@pytest.fixture
def engine(current_engine: Engine) -> Engine:
    return current_engine


@pytest.fixture
def app(engine: Engine, engine_slot: EngineSlot) -> FastAPI:
    """The API with no token, served in process (`engine` first, so what it saves is there)."""
    from fastapi import FastAPI

    from gui.api import register_api
    from gui.api.request_gate import Served

    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    return app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    import httpx

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


@pytest.fixture
async def remote(app: FastAPI) -> AsyncIterator[RemoteEngine]:
    """The door over HTTP, as the CLI uses it, talking to `app` (streams answered as they come)."""
    import httpx
    from test_api_events import StreamingTransport

    from gui.remote import RemoteEngine

    ops = RemoteEngine("http://test")
    await ops.close()
    ops._client = httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test")
    yield ops
    await ops.close()
