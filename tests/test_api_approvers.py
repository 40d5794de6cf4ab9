"""Several people over the HTTP API (issue 26, items 2-4): a run started by one person asks a step that two
on-call people must approve; each sees it in their inbox view, one approves in a batch, the other
alone, and the run goes on. Refusals (an outsider, the same person twice, the starter) change nothing.

Who asks is the `Person` a team server's sign-in puts on the request's scope (`seqdesk.person`). No
sign-in exists on this branch, so this module puts a test-only middleware there that reads the name
from a header: it is defined here and installed nowhere else (the production app has no such way).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI, Request, Response
from support.builders import group, seq, tools
from support.team_directory import TEAM, Team
from support.waiting import wait_until

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.door.engine import Engine
from gui.core.people import Person
from gui.memory import MemoryAuditLog, MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

AS = "x-test-person"  # read by this module's middleware only
APPROVE = {"kind": "approval", "decision": "approved"}


@pytest.fixture
async def current_engine() -> AsyncIterator[Engine]:
    engine = compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog(), directory=Team(TEAM))
    yield engine
    await engine.close()


@pytest.fixture
def app(engine: Engine, engine_slot: EngineSlot) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())

    @app.middleware("http")
    async def signed_in(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if AS in request.headers:
            name = request.headers[AS]
            request.scope["seqdesk.person"] = Person(name, frozenset(TEAM.get(name, ())))
        return await call_next(request)

    return app


def as_(name: str) -> dict[str, str]:
    return {AS: name}


async def started(client: httpx.AsyncClient, engine: Engine, starter: str = "runner") -> tuple[str, str]:
    step = {"tool": "cmd_run", "args": {"command": "echo deployed"}, "approvers": ["role:oncall"], "required": 2}
    document = seq(group("deploy", tools=tools(step)), name="release")
    saved = await client.post("/api/sequences", json=document)
    assert saved.status_code in (200, 201), saved.text
    run = await client.post("/api/runs", json={"sequence": "release"}, headers=as_(starter))
    assert run.status_code == 202, run.text
    run_id = run.json()["run_id"]
    pending = await wait_until(lambda: engine.pending(run_id), "the step to ask")
    return run_id, pending[0].interaction_id


async def view(client: httpx.AsyncClient, person: str, name: str) -> list[str]:
    answer = await client.get("/api/interactions", params={"view": name}, headers=as_(person))
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-total-count"] == str(len(answer.json()))
    return [r["interaction_id"] for r in answer.json()]


async def test_two_people_approve_a_step_that_needs_two_and_the_run_goes_on(client: httpx.AsyncClient,
                                                                            engine: Engine) -> None:
    run_id, iid = await started(client, engine)
    assert (await engine.get_run(run_id)).started_by == "runner"
    assert await view(client, "ana", "needs_you") == [iid]
    assert await view(client, "runner", "needs_you") == []
    assert await view(client, "runner", "started_by_you") == [iid]
    batch = await client.post("/api/interactions/batch", headers=as_("ana"),
                              json={"answers": [{"interaction_id": iid, "response": APPROVE}]})
    assert batch.status_code == 200, batch.text
    (outcome,) = batch.json()["outcomes"]
    assert outcome["answered"]["status"] == "pending" and outcome["answered"]["required"] == 2
    assert [a["person"] for a in outcome["answered"]["approvals"]] == ["ana"]
    assert await view(client, "ana", "waiting") == [iid]
    assert await view(client, "li.wei", "needs_you") == [iid]
    listed = (await client.get(f"/api/interactions/{iid}")).json()
    assert [a["person"] for a in listed["approvals"]] == ["ana"] and listed["status"] == "pending"
    second = await client.post(f"/api/interactions/{iid}/respond", json=APPROVE, headers=as_("li.wei"))
    assert (second.status_code, second.json()["status"]) == (200, "resolved")
    finished = await wait_until(lambda: _finished(engine, run_id), "the run to finish")
    assert finished.status == "succeeded"
    entries, verdict = await engine.decisions()
    assert verdict.ok and [(e.person, e.decision) for e in entries] == [("ana", "approved"), ("li.wei", "approved")]


async def _finished(engine: Engine, run_id: str) -> object:
    record = await engine.get_run(run_id)
    return record if record is not None and record.finished else None


async def test_refusals_say_why_with_their_status_and_change_nothing(client: httpx.AsyncClient,
                                                                     engine: Engine) -> None:
    _, iid = await started(client, engine)
    before = (await client.get(f"/api/interactions/{iid}")).json()
    outsider = await client.post(f"/api/interactions/{iid}/respond", json=APPROVE, headers=as_("sam"))
    assert (outsider.status_code, outsider.json()["code"]) == (403, "not-an-approver")
    assert "sam is not among the approvers" in outsider.json()["detail"]
    desktop = await client.post(f"/api/interactions/{iid}/respond", json=APPROVE)  # nobody signed in: "you"
    assert desktop.status_code == 403
    assert (await client.get(f"/api/interactions/{iid}")).json() == before
    await client.post(f"/api/interactions/{iid}/respond", json=APPROVE, headers=as_("ana"))
    again = await client.post("/api/interactions/batch", headers=as_("ana"),
                              json={"answers": [{"interaction_id": iid, "response": APPROVE}]})
    (outcome,) = again.json()["outcomes"]
    assert (outcome["status"], outcome["code"]) == (409, "already-approved")


async def test_the_starter_of_a_run_cannot_approve_its_step(client: httpx.AsyncClient, engine: Engine) -> None:
    _, iid = await started(client, engine, starter="ana")
    refused = await client.post(f"/api/interactions/{iid}/respond", json=APPROVE, headers=as_("ana"))
    assert (refused.status_code, refused.json()["code"]) == (403, "not-an-approver")
    assert "ana started this run" in refused.json()["detail"]


async def test_a_hand_over_over_http(client: httpx.AsyncClient, engine: Engine) -> None:
    _, iid = await started(client, engine)
    handed = await client.post(f"/api/interactions/{iid}/hand-over", headers=as_("ana"),
                               json={"to": "person:sam", "note": "sam knows the host"})
    assert handed.status_code == 200, handed.text
    assert handed.json()["handovers"][0] == {**handed.json()["handovers"][0], "by": "ana", "to": "person:sam"}
    assert await view(client, "sam", "needs_you") == [iid]
    bad = await client.post(f"/api/interactions/{iid}/hand-over", headers=as_("ana"), json={"to": "sam"})
    assert (bad.status_code, bad.json()["code"]) == (422, "invalid-response")


@pytest.mark.parametrize(("params", "says"), [
    ({"view": "everything"}, "view"),
    ({"view": "needs_you", "kind": "approval"}, "leave out kind"),
])
async def test_a_view_that_is_not_one_is_refused(client: httpx.AsyncClient, params: dict[str, str],
                                                  says: str) -> None:
    answer = await client.get("/api/interactions", params=params)
    assert answer.status_code in (400, 422) and says in answer.text


@pytest.mark.parametrize("body", [{"answers": []}, {"answers": [{"interaction_id": "x"}]}, [],
                                  {"answers": [{"interaction_id": "a", "response": APPROVE}] * 2}])
async def test_a_batch_that_is_not_one_is_refused_whole(client: httpx.AsyncClient, body: object) -> None:
    answer = await client.post("/api/interactions/batch", json=body)
    assert answer.status_code == 422, answer.text


async def test_a_run_from_a_document_knows_who_started_it_and_a_desktop_one_nobody(client: httpx.AsyncClient,
                                                                                 engine: Engine) -> None:
    document = seq(group("doc-go"), name="doc-run")
    signed = await client.post("/api/runs", json={"document": document}, headers=as_("sam"))
    plain = await client.post("/api/runs", json={"document": document})
    assert signed.status_code == plain.status_code == 202, (signed.text, plain.text)
    assert (await engine.get_run(signed.json()["run_id"])).started_by == "sam"
    assert (await engine.get_run(plain.json()["run_id"])).started_by is None
