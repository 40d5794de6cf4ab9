"""The list routes over a data folder write each record as its own route does (`record_json`,
`interaction_json` through `dump_bytes`), gzipped when the client takes it, whatever a tool put in it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.body import dump_bytes
from gui.api.request_gate import Served
from gui.api.shared import interaction_json, record_json
from gui.context import EngineSlot
from gui.core.asks.interactions import (
    ApprovalResponse,
    InteractionRecord,
    ResolvedResult,
    ShellApprovalRequest,
    ToolSource,
)
from gui.core.queries import StoredText
from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.runtime import Runtime, open_runtime


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    rt = await open_runtime(tmp_path / "data")
    yield rt
    await rt.close()


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=EngineSlot(runtime.engine).for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


ODD_RESULTS = ["plain", float("nan"), float("inf"), 2**70, "half a pair \ud800", {"ключ": ["値", None, 1.5]}]


def run(n: int) -> RunRecord:
    tool = ToolRecord(index=0, tool="echo", tool_call_id=f"c{n}", as_="said", status="succeeded", started_at=n,
                      finished_at=n + 1, args={"value": n}, result=ODD_RESULTS[n % len(ODD_RESULTS)])
    return RunRecord(run_id=f"run{n:03d}", sequence="nightly", status="succeeded", created_at=1_700_000_000 + n,
                     finished_at=1_700_000_001 + n, groups=[GroupRecord(index=0, name="g", tools=[tool])])


def answered(n: int) -> InteractionRecord:
    iid = f"i{n:03d}"
    request = ShellApprovalRequest(interaction_id=iid, turn_id=f"run{n:03d}", created_at=1_700_000_000_000 + n,
                                   source=ToolSource(tool_call_id=f"c{n}", tool_name="cmd_run"), title="Run",
                                   command=f"make {ODD_RESULTS[n % 6] if n % 6 in (0, 4) else 'all'}", cwd="/srv",
                                   reason="r", operation="exec", sequence_name="deploy")
    return InteractionRecord(request=request, status="resolved", resolved_at=request.created_at + 1,
                             result=ResolvedResult(interaction_id=iid, response=ApprovalResponse(decision="approved")))


def as_before(items: list[dict]) -> object:
    """What the route wrote before it wrote record by record: the list through `dump_bytes`."""
    return json.loads(dump_bytes(items))


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
async def test_a_page_of_runs_is_each_record_as_its_route_writes_it(client, runtime, encoding):
    await runtime.engine.runs.save_many([run(n) for n in range(30)])
    stored = (await runtime.engine.run_page(limit=30)).items
    got = await client.get("/api/runs", params={"limit": 30}, headers={"Accept-Encoding": encoding})
    assert got.status_code == 200 and got.headers["x-total-count"] == "30"
    assert got.headers.get("content-encoding") == ("gzip" if encoding == "gzip" else None)
    assert got.json() == as_before([record_json(r) for r in stored])
    assert [r["run_id"] for r in got.json()] == [f"run{n:03d}" for n in range(29, -1, -1)]
    assert got.json()[0]["groups"][0]["tools"][0]["as"] == "said"  # by alias, as `record_json`
    sent = (await runtime.engine.run_page_texts(limit=30)).items
    vouched = {item.id for item in sent if isinstance(item, StoredText)}
    # sent as stored, unread: all but the text with a lone surrogate (not strict JSON: read, and repaired)
    assert vouched == {f"run{n:03d}" for n in range(30) if ODD_RESULTS[n % len(ODD_RESULTS)] != "half a pair \ud800"}


async def test_a_page_of_requests_has_the_id_first_and_reads_as_before(client, runtime):
    await runtime.engine.interaction_store.save_many([answered(n) for n in range(12)])
    stored = (await runtime.engine.interaction_page(status="resolved", limit=12)).items
    got = await client.get("/api/interactions", params={"status": "resolved", "limit": 12},
                           headers={"Accept-Encoding": "gzip"})
    assert got.headers["content-encoding"] == "gzip" and got.headers["x-total-count"] == "12"
    assert got.json() == as_before([interaction_json(r) for r in stored])
    assert all(next(iter(item)) == "interaction_id" for item in got.json())
    sent = (await runtime.engine.interaction_page_texts(status="resolved", limit=12)).items
    vouched = {item.id for item in sent if isinstance(item, StoredText)}
    # sent as stored, unread: all but the command with a lone surrogate (not strict JSON: read, and repaired)
    assert vouched == {f"i{n:03d}" for n in range(12) if n % 6 != 4}


async def test_an_empty_page_is_not_gzipped(client):
    empty = await client.get("/api/runs", headers={"Accept-Encoding": "gzip"})
    assert empty.content == b"[]" and empty.headers["x-total-count"] == "0"
    assert "content-encoding" not in empty.headers
