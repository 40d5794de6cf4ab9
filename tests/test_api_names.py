"""Naming conflicts over the HTTP API: every one in one answer, each at its `loc`, naming its holder."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.door.engine import Engine
from gui.core.sequences.help import EXAMPLE


@pytest.fixture
async def client(current_engine: Engine, engine_slot: EngineSlot) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        assert (await c.post("/api/sequences", json=json.loads(EXAMPLE))).status_code == 201
        yield c


async def test_a_check_as_new_reports_the_name_and_both_groups_at_once(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/check", json={"document": json.loads(EXAMPLE), "as_new": True})
    body = response.json()
    assert response.status_code == 200 and body["ok"] is False
    assert [(tuple(e["loc"]), e["code"]) for e in body["errors"]] == [
        (("name",), "name-taken"),
        (("groups", 0, "name"), "duplicate-group"),
        (("groups", 1, "name"), "duplicate-group"),
    ]
    assert all("check-three-nodes" in e["message"] for e in body["errors"])


async def test_a_new_sequence_taking_both_group_names_hears_of_both_in_one_422(client: httpx.AsyncClient) -> None:
    doc = {**json.loads(EXAMPLE), "name": "another"}
    response = await client.post("/api/sequences", json=doc)
    assert response.status_code == 422
    text = json.dumps(response.json())
    assert "fetch-one-node" in text and "dig-deeper" in text and "check-three-nodes" in text


async def test_a_save_as_new_answers_422_with_every_naming_conflict_and_keeps_the_saved_one(
        client: httpx.AsyncClient, current_engine: Engine) -> None:
    before = await current_engine.get("check-three-nodes")
    doc = {**json.loads(EXAMPLE), "description": "changed"}
    response = await client.post("/api/sequences", params={"as_new": "true"}, json=doc)
    assert response.status_code == 422
    assert [(tuple(e["loc"]), e["code"]) for e in response.json()["errors"]] == [
        (("name",), "name-taken"),
        (("groups", 0, "name"), "duplicate-group"),
        (("groups", 1, "name"), "duplicate-group"),
    ]
    assert await current_engine.get("check-three-nodes") == before
