"""Bad input never becomes a 500: malformed and oversized bodies by hand, then anything at all by hypothesis.

Every 4xx must also say what is wrong, as `{"detail": "<text>"}`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support.waiting import wait_until, within

from gui.api import register_api
from gui.api.body import MAX_BODY_BYTES, MAX_DEPTH
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.door.engine import Engine
from gui.core.events import Event

JSON_BODY = {"Content-Type": "application/json"}  # raw bodies below are sent as JSON: the request gate wants it

T = 5.0
ECHO = {"name": "greet", "groups": [{"name": "say", "in": {"who": "string"}, "out": {"text": "string"},
                                     "tools": '{"tool":"echo","args":{"value":"$args.who"},"as":"text"} ;'}]}
SHELL = {"name": "shell", "groups": [{"name": "ask", "in": {}, "out": {},
                                      "tools": '{"tool":"cmd_run","args":{"command":"true"}} ;'}]}


@pytest.fixture
async def engine(current_engine: Engine) -> Engine:
    await current_engine.create(ECHO)
    await current_engine.create(SHELL)
    return current_engine


@pytest.fixture
async def client(engine: Engine, engine_slot: EngineSlot) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test",
                                 headers=JSON_BODY) as c:
        yield c


@pytest.fixture
async def pending_id(engine: Engine) -> str:
    """A real pending interaction, so that respond bodies reach the response validation."""
    created: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_event(event: Event) -> None:
        if event.type == "interaction.created" and not created.done():
            created.set_result(event.data["interaction_id"])

    unsubscribe = engine.bus.subscribe(on_event)
    await engine.start("shell", {})
    try:
        return await within(created, "the run's approval request")
    finally:
        unsubscribe()


def assert_refused_clearly(answer: httpx.Response) -> None:
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        detail = answer.json()["detail"]
        assert isinstance(detail, str) and detail


# -- by hand ---------------------------------------------------------------------------------------

async def test_a_form_answer_with_a_very_large_whole_number_is_taken_not_a_500(client, engine):
    from gui.core.asks.elicitation import InboxElicitationHandler
    from gui.core.asks.interactions import ElicitationField, ElicitationRequest

    handler = InboxElicitationHandler(engine.interactions)
    asking = asyncio.create_task(handler.handle_elicitation(ElicitationRequest(
        server_name="db", message="How many?", fields=[ElicitationField(name="n", type="number")])))
    async def forms() -> list:
        return [r for r in await engine.interactions.pending() if r.request.kind == "elicitation"]

    pending = await wait_until(forms, "the form in the inbox", timeout=T)
    body = '{"kind": "elicitation", "action": "accept", "values": {"n": ' + "9" * 400 + "}}"
    answer = await client.post(f"/api/interactions/{pending[0].interaction_id}/respond", content=body)
    assert answer.status_code == 200, answer.text
    assert (await within(asking, "the form's reply")).values == {"n": int("9" * 400)}


@pytest.mark.parametrize(("body", "status", "says"), [
    (b"", 400, "the request body is empty: send a sequence document"),
    (b"{'name': 1}", 400, "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
    (b'{"name": NaN}', 400, "NaN is not a JSON number"),
    (b'{"n": Infinity}', 400, "Infinity is not a JSON number"),
    (b'{"n": 1e999}', 400, "1e999 is too large a number"),
    (b"\xff\xfe{}", 400, "not UTF-8 text"),
    (b'{"name": "\\ud800"}', 400, "not valid Unicode (a lone surrogate) at name"),
    (b'{"\\udfff": 1}', 400, "a key that is not valid Unicode"),
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), 400, "nested too deeply"),
    (b"[" * 100_000 + b"]" * 100_000, 400, "nested too deeply"),
    (b"1" * 5000, 400, "not valid JSON"),
    (b"42", 422, "the sequence is not valid"),
])
async def test_a_body_that_is_not_a_usable_document_is_refused_saying_why(client, body, status, says):
    answer = await client.post("/api/sequences", content=body)
    assert answer.status_code == status
    assert says in answer.json()["detail"]


async def test_nan_in_run_args_is_refused_before_anything_runs(client, engine):
    answer = await client.post("/api/runs", content=b'{"sequence": "greet", "args": {"who": NaN}}')
    assert answer.status_code == 400
    assert await engine.list_runs() == []


async def test_a_body_over_the_limit_is_413_by_its_declared_length(client):
    answer = await client.post("/api/sequences", content=b" " * (MAX_BODY_BYTES + 1))
    assert answer.status_code == 413
    assert "larger than the limit" in answer.json()["detail"]


async def test_a_streamed_body_without_a_length_is_cut_off_at_the_limit(client):
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b" " * (MAX_BODY_BYTES // 2)

    answer = await client.post("/api/runs", content=chunks())
    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413


async def test_a_body_just_under_the_limit_is_read(client):
    body = json.dumps({"sequence": "greet", "args": {"who": "x" * (MAX_BODY_BYTES - 100)}}).encode()
    assert len(body) <= MAX_BODY_BYTES
    assert (await client.post("/api/runs", content=body)).status_code == 202


async def test_a_content_length_that_is_not_a_number_is_400(client):
    request = client.build_request("POST", "/api/runs", content=b"{}")
    request.headers["content-length"] = "lots"
    assert (await client.send(request)).status_code == 400


async def test_unknown_api_paths_are_404_and_wrong_methods_405_in_json(client):
    missing = await client.get("/api/sequencez")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "there is no API route GET /api/sequencez"}
    wrong = await client.put("/api/runs")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET, POST"


async def test_an_api_route_added_later_still_answers(engine_slot):
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())

    @app.get("/api/later")
    async def later() -> dict:
        return {"here": True}

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test",
                                 headers=JSON_BODY) as c:
        assert (await c.get("/api/later")).json() == {"here": True}


async def test_without_an_open_engine_the_api_says_so_with_503(client, engine_slot):
    engine_slot.engine = None
    answer = await client.get("/api/sequences")
    assert answer.status_code == 503
    assert "not open yet" in answer.json()["detail"]
    assert (await client.get("/api/events")).status_code == 503


# -- by hypothesis ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
KEYS = ["name", "description", "groups", "in", "out", "when", "parallel", "missing", "timeout", "on_error",
        "tools", "sequence", "args", "kind", "decision", "answers", "action", "values", "response", "reason",
        "always_allow", "interaction_id", "who"]
shaped = st.recursive(
    json_values,
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=6) | st.lists(inner, max_size=3),
    max_leaves=30,
)
bodies = st.one_of(
    st.binary(max_size=300),
    shaped.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)
ids = st.text(max_size=40) | st.sampled_from(["greet", "say", "shell", "..", "%", "a/b", " "])
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(body=bodies, some_id=ids, use_pending=st.booleans())
async def test_any_body_posted_to_any_route_never_gives_a_500(client, pending_id, body, some_id, use_pending):
    iid = pending_id if use_pending else quote(some_id, safe="")
    for path in ("/api/sequences", "/api/runs", f"/api/interactions/{iid}/respond",
                 f"/api/runs/{quote(some_id, safe='')}/stop"):
        assert_refused_clearly(await client.post(path, content=body))


@FUZZ
@given(some_id=ids, params=st.dictionaries(st.sampled_from(["limit", "offset", "status", "format", "run_id"]),
                                           st.text(max_size=12), max_size=3))
async def test_any_id_and_query_to_any_get_route_never_gives_a_500(client, some_id, params):
    quoted = quote(some_id, safe="")
    for path in ("/api/sequences", f"/api/sequences/{quoted}", "/api/runs", f"/api/runs/{quoted}",
                 "/api/interactions", f"/api/interactions/{quoted}", f"/api/{quoted}"):
        assert_refused_clearly(await client.get(path, params=params))
    assert_refused_clearly(await client.delete(f"/api/sequences/{quoted}x"))


names = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
slots = st.dictionaries(st.sampled_from(["a", "b", "who"]), st.sampled_from(["string", "number", "array"]), max_size=2)
echo_calls = st.fixed_dictionaries(
    {"tool": st.just("echo"), "args": st.fixed_dictionaries(
        {"value": json_values | st.sampled_from(["$args.a", "$args.who", "hi $args.b"])})},
    optional={"as": st.sampled_from(["a", "b", "who"])})
odd_calls = st.fixed_dictionaries({"tool": st.sampled_from(["ask_user", "nope", "echo"])},
                                  optional={"args": json_values, "as": st.text(max_size=3)})
groups = st.fixed_dictionaries(
    {"name": names, "tools": st.lists(echo_calls | echo_calls | echo_calls | odd_calls, min_size=1, max_size=3).map(
        lambda calls: " ".join(json.dumps(c) + " ;" for c in calls))},
    optional={"in": slots, "out": slots, "when": st.sampled_from(["true", "$args.a == 1", "(("]),
              "parallel": st.booleans(), "missing": st.sampled_from(["fail", "skip", "degrade"]),
              "on_error": st.sampled_from(["abort", "continue", "retry"]), "timeout": st.sampled_from(["2s", "x"])},
)
documents = st.fixed_dictionaries({"name": names, "groups": st.lists(groups, min_size=1, max_size=3)},
                                  optional={"description": st.text(max_size=10) | json_values})


@FUZZ
@given(doc=st.one_of(documents, documents, documents, st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4)),
       args=st.dictionaries(st.sampled_from(["a", "b", "who", "x"]), json_values, max_size=3))
async def test_sequence_like_documents_and_their_runs_never_give_a_500(client, engine, doc, args):
    saved = await client.post("/api/sequences", json=doc)
    assert_refused_clearly(saved)
    if saved.status_code in (200, 201):
        event("saved")
        started = await client.post("/api/runs", json={"sequence": doc["name"], "args": args})
        assert_refused_clearly(started)
        event(f"run {started.status_code}")
        name = quote(doc["name"], safe="")
        assert_refused_clearly(await client.get(f"/api/sequences/{name}", params={"format": "text"}))
        assert (await client.delete(f"/api/sequences/{name}")).status_code == 204  # its names are free again
