"""Who answered, over the HTTP API: the API's own answers are recorded as the HTTP API with the app's
token, and the CLI talking to the app (`RemoteEngine`) says so, so its answers are recorded as the CLI's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from support.interactions import shell

from gui.core.asks import Answerer, ApprovalResponse
from gui.core.door.engine import Engine
from gui.memory import MemoryAuditLog, MemoryStores
from gui.remote import RemoteEngine
from gui.runtime import compose_engine
from gui.tools import default_registry


@pytest.fixture
async def current_engine() -> AsyncIterator[Engine]:
    """An in-memory engine that keeps a record of decisions (the app's, composed as `open_runtime` does)."""
    engine = compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog())
    yield engine
    await engine.close()


async def who(engine: Engine) -> list[tuple[str, str | None, str | None]]:
    found, verdict = await engine.decisions()
    assert verdict.ok
    return [(entry.interaction_id, entry.via, entry.decision) for entry in found]


async def test_an_answer_through_the_api_is_recorded_as_the_api_with_the_apps_token(
        engine: Engine, client: httpx.AsyncClient) -> None:
    await engine.interactions.request(shell("h1"))
    answer = await client.post("/api/interactions/h1/respond", json={"kind": "approval", "decision": "approved"})
    assert answer.status_code == 200
    assert await who(engine) == [("h1", "api", "approved")]


async def test_the_cli_answering_through_the_app_is_recorded_as_the_cli(engine: Engine,
                                                                       remote: RemoteEngine) -> None:
    await engine.interactions.request(shell("h2"))
    await remote.respond("h2", ApprovalResponse(decision="denied"), Answerer(via="cli"))
    assert await who(engine) == [("h2", "cli", "denied")]


async def test_a_way_in_the_api_does_not_know_is_recorded_as_the_api(engine: Engine,
                                                                    client: httpx.AsyncClient) -> None:
    await engine.interactions.request(shell("h3"))
    await client.post("/api/interactions/h3/respond", json={"kind": "approval", "decision": "approved"},
                      headers={"X-SeqDesk-Via": "app"})  # only the app's own pages answer as "in the app"
    assert await who(engine) == [("h3", "api", "approved")]
