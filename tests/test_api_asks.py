"""`POST /api/asks`, `GET /api/asks/{id}`, `DELETE /api/asks/{id}`: a program asks the person, behind every
gate of the API. Who else could send it: a web page (refused by Origin and Content-Type), another host name
(DNS rebinding, refused by Host), a stranger when the app has a token, a paired phone (refused)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from support.waiting import wait_until, within

from gui.api import register_api
from gui.api.auth import DEVICE_SCOPE_KEY
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.asks import ShellApprovalRequest, ToolSource
from gui.core.door import AskInvalid, ProgramAsk
from gui.core.door.asks import MAX_WAITING

APPROVAL = {"kind": "approval", "title": "Push", "command": "git push", "asker": "claude-code"}
TOKEN = "a-token-of-sixteen-or-more"


async def test_an_approval_is_asked_answered_in_the_inbox_and_read_back(client):
    asked = await client.post("/api/asks", json=APPROVAL)
    assert asked.status_code == 201, asked.text
    state = asked.json()
    assert (state["status"], state["kind"]) == ("pending", "approval")
    assert asked.headers["location"] == f"/api/asks/{state['ask_id']}"
    [listed] = (await client.get("/api/interactions", params={"status": "pending"})).json()
    assert listed["request"]["source"] == {"type": "program", "asker": "claude-code"}
    waiting = asyncio.create_task(client.get(f"/api/asks/{state['ask_id']}", params={"wait": 30}))
    answer = await client.post(f"/api/interactions/{state['ask_id']}/respond",
                               json={"kind": "approval", "decision": "approved"})
    assert answer.status_code == 200
    assert (await within(waiting, "the waiting read of the ask to answer")).json()["status"] == "approved"


async def test_a_question_waits_in_the_post_itself_when_asked_to(client, engine):
    asked = asyncio.create_task(client.post("/api/asks", params={"wait": 30},
                                            json={"kind": "question", "text": "Which?", "choices": ["a", "b"]}))
    [record] = await _pending(engine)
    await engine.respond(record.interaction_id, {"kind": "question",
                                                 "answers": [{"question_id": "answer", "value": "b"}]})
    answered = await within(asked, "the waiting post to answer")
    assert (answered.status_code, answered.json()["answer"]) == (201, "b")


async def test_a_program_that_gives_up_withdraws_its_request(client):
    state = (await client.post("/api/asks", json=APPROVAL)).json()
    gone = await client.delete(f"/api/asks/{state['ask_id']}")
    assert (gone.status_code, gone.json()["status"]) == (200, "cancelled")


async def test_a_runs_request_is_not_a_programs(client, engine):
    request = ShellApprovalRequest(interaction_id="run-req", turn_id="r1", created_at=0, title="t", command="ls",
                                   cwd="/", reason="", operation="exec",
                                   source=ToolSource(tool_call_id="c", tool_name="cmd_run"))
    await engine.interactions.request(request)
    for answer in (await client.get("/api/asks/run-req"), await client.delete("/api/asks/run-req")):
        assert (answer.status_code, answer.json()["code"]) == (404, "not-found")
    assert (await engine.get_interaction("run-req")).status == "pending"


@pytest.mark.parametrize(("body", "says"), [
    ({"kind": "approval", "title": "x" * 201, "command": "ls"}, "title: String should have at most 200"),
    ({"kind": "approval", "command": "ls", "text": "<script>\u202e"}, "U+202E"),
    ([APPROVAL], "not an array"),
    ({"kind": "approval"}, "needs the command"),
])
async def test_what_cannot_be_shown_as_it_is_is_refused_with_its_field(client, body, says):
    answer = await client.post("/api/asks", json=body)
    assert (answer.status_code, answer.json()["code"]) == (422, "invalid-ask")
    assert says in answer.json()["detail"]


async def test_markup_is_kept_as_text_for_the_inbox_to_show_as_text(client, engine):
    await client.post("/api/asks", json={**APPROVAL, "title": "<img src=x onerror=alert(1)>",
                                         "text": "**bold** <b>not bold</b>"})
    [record] = await _pending(engine)
    assert (record.request.title, record.request.description) == ("<img src=x onerror=alert(1)>",
                                                                  "**bold** <b>not bold</b>")


async def test_too_many_waiting_are_refused_with_a_stable_code(client):
    for i in range(MAX_WAITING):
        assert (await client.post("/api/asks", json={**APPROVAL, "command": f"step {i}"})).status_code == 201
    refused = await client.post("/api/asks", json=APPROVAL)
    assert (refused.status_code, refused.json()["code"]) == (409, "too-many-asks")


@pytest.mark.parametrize(("headers", "status"), [
    ({"Origin": "https://evil.example"}, 403),  # a web page the person visits
    ({"Host": "evil.example"}, 421),  # a page whose name was pointed at 127.0.0.1
    ({"Content-Type": "text/plain"}, 415),  # a form or a "simple" fetch, which needs no preflight
])
async def test_a_web_page_cannot_ask(client, engine, headers, status):
    content = '{"kind": "approval", "command": "ls"}'
    answer = await client.post("/api/asks", content=content,
                               headers={"Content-Type": "application/json", **headers})
    assert answer.status_code == status
    assert await engine.pending() == []


async def test_a_paired_phone_answers_requests_but_never_makes_them(app, engine):
    async def as_phone(scope, receive, send):
        scope[DEVICE_SCOPE_KEY] = "phone-1"
        await app(scope, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=as_phone), base_url="http://test") as phone:
        answer = await phone.post("/api/asks", json=APPROVAL)
    assert answer.status_code == 403
    assert await engine.pending() == []


async def test_with_a_token_only_a_program_that_has_it_can_ask(engine):
    app = FastAPI()
    register_api(app, engine=EngineSlot(engine).for_api, token=TOKEN, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        assert (await client.post("/api/asks", json=APPROVAL)).status_code == 401
        wrong = {"Authorization": "Bearer " + "x" * 26}
        assert (await client.post("/api/asks", json=APPROVAL, headers=wrong)).status_code == 401
        right = {"Authorization": f"Bearer {TOKEN}"}
        assert (await client.post("/api/asks", json=APPROVAL, headers=right)).status_code == 201
    assert len(await engine.pending()) == 1


async def test_the_remote_door_asks_and_gets_the_apps_refusals_back_as_themselves(remote, engine):
    state = await remote.ask(ProgramAsk(kind="approval", command="ls", asker="script"))
    await engine.respond(state.ask_id, {"kind": "approval", "decision": "denied", "reason": "no"})
    done = await remote.ask_state(state.ask_id, 30)
    assert (done.status, done.reason) == ("denied", "no")
    with pytest.raises(AskInvalid, match="needs the command"):
        await remote._request("POST", "/api/asks", json={"kind": "approval"})


async def _pending(engine):
    return await wait_until(engine.pending, "the request to wait in the inbox")
