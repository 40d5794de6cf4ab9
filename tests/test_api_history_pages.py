"""The list routes page in the store: `limit`/`offset`, every filter, and the total as `X-Total-Count`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.asks.interactions import (
    ApprovalResponse,
    InteractionRecord,
    ResolvedResult,
    ShellApprovalRequest,
    ToolSource,
)
from gui.core.door.engine import Engine
from gui.core.runs.records import RunRecord


@pytest.fixture
async def client(current_engine: Engine, engine_slot: EngineSlot) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


def run(n: int, status: str, sequence: str) -> RunRecord:
    return RunRecord(run_id=f"run{n:03d}", sequence=sequence, status=status,  # type: ignore[arg-type]
                     created_at=1_700_000_000 + n, finished_at=1_700_000_001 + n)


def answered(n: int, pending: bool = False) -> InteractionRecord:
    iid = f"i{n:03d}"
    request = ShellApprovalRequest(interaction_id=iid, turn_id=f"run{n % 3:03d}", created_at=1_700_000_000_000 + n,
                                   source=ToolSource(tool_call_id=f"c{n}", tool_name="cmd_run"), title="Run",
                                   command="make", cwd="/srv", reason="r", operation="exec",
                                   sequence_name="deploy" if n % 2 else "nightly")
    if pending:
        return InteractionRecord(request=request)
    return InteractionRecord(request=request, status="resolved", resolved_at=request.created_at + 1,
                             result=ResolvedResult(interaction_id=iid, response=ApprovalResponse(decision="approved")))


async def test_runs_are_paged_and_filtered_with_the_total_in_a_header(client, current_engine):
    await current_engine.runs.save_many([run(n, "failed" if n % 4 == 0 else "succeeded",
                                             "Deploy to production" if n % 2 else "nightly") for n in range(30)])
    page = await client.get("/api/runs", params={"limit": 5, "offset": 2})
    assert page.headers["x-total-count"] == "30"
    assert [r["run_id"] for r in page.json()] == ["run027", "run026", "run025", "run024", "run023"]
    failed = await client.get("/api/runs", params={"status": "failed", "limit": 3})
    assert failed.headers["x-total-count"] == "8" and [r["status"] for r in failed.json()] == ["failed"] * 3
    found = await client.get("/api/runs", params={"q": "PRODUCTION", "started_from": 1_700_000_020})
    assert found.headers["x-total-count"] == "5"
    assert {r["sequence"] for r in found.json()} == {"Deploy to production"}


async def test_requests_are_paged_and_filtered_with_the_total_and_ended_leaves_out_the_pending(client, current_engine):
    await current_engine.interaction_store.save_many([*(answered(n) for n in range(20)), answered(20, pending=True)])
    ended = await client.get("/api/interactions", params={"status": "ended", "limit": 4})
    assert ended.headers["x-total-count"] == "20"
    assert [r["status"] for r in ended.json()] == ["resolved"] * 4
    for params, total in [({}, "21"), ({"status": "pending"}, "1"), ({"run_id": "run001"}, "7"),
                          ({"sequence": "deploy", "tool": "cmd_run", "kind": "approval"}, "10")]:
        page = await client.get("/api/interactions", params={**params, "limit": 2})
        assert page.headers["x-total-count"] == total, params
        assert len(page.json()) == min(2, int(total))
    refused = await client.get("/api/interactions", params={"status": "finished"})
    assert refused.status_code == 422
