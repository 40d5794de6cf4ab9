"""The one table (`gui.wire.errors`): each exception a route lets through answers with its family's
status, its code and its fields, and `RemoteEngine` raises the very same class back from them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.asks import (
    AlreadyApproved,
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionValidationError,
    NotAnApprover,
)
from gui.core.door import (
    AskInvalid,
    McpServerExists,
    McpServerInvalid,
    McpServerNotFound,
    NotFoundError,
    SignInFailed,
    TooManyAsks,
)
from gui.core.errors import (
    Conflict,
    Failed,
    Gone,
    Internal,
    Invalid,
    NotFound,
    NotSignedIn,
    Refused,
    SeqDeskError,
    TooLarge,
    TooSoon,
    Unavailable,
    Unreadable,
)
from gui.core.runs import AmbiguousRunIdError, ResumeRefused, ScheduleInvalid
from gui.core.sequences import DslError, InvalidSequenceError, RunArgsError, ValidationResult, problem
from gui.remote import RemoteEngine
from gui.wire import BY_CODE, body_of

RESULT = ValidationResult(
    errors=[problem(("groups", 1, "name"), "duplicate-group", "group name 'g' is already used by group 0"),
            problem(("groups", 1, "tools"), "empty-tools", "the group has no tools", offset=0)],
    warnings=[problem(("groups", 0, "tools", 0, "tool"), "unknown-tool", "no tool named 'nope' is available now",
                      severity="warning")])
SAMPLES: list[SeqDeskError] = [
    SeqDeskError("something went wrong"),
    Unreadable("the request body is not valid JSON"),
    NotSignedIn("sign in first: this SeqDesk is a team's"),
    Gone("this invite link was used already: sign in, or ask an admin for a new one"),
    TooSoon("too many wrong passwords for this name or from this address: wait 60 s and try again"),
    Refused("MCP servers are changed on the computer SeqDesk runs on"),
    NotFound("there is no interaction nope"),
    Conflict("turn phone access on first"),
    TooLarge("the request body is larger than the limit of 2 MB (2097152 bytes)"),
    Invalid("say which channel to test"),
    Internal("the settings file is not a server list"),
    Failed("could not reach the webhook"),
    Unavailable("SeqDesk's engine is not open yet: try again in a moment"),
    NotFoundError("there is no saved sequence named 'nope'"),
    ResumeRefused("run abc succeeded: there is nothing to resume"),
    AmbiguousRunIdError("0911", ["0911dd99bbbb", "0911dd99aaaa"]),
    RunArgsError(["'who' must be a string", "'n' is missing"]),
    ScheduleInvalid({"every": "at most every 10s", "args.who": "give it a value"}),
    DslError(RESULT.errors + RESULT.warnings),
    InvalidSequenceError(RESULT),
    InteractionNotPendingError("interaction i-1 has ended", "i-1"),
    InteractionValidationError("'name' is required", "i-2"),
    NotAnApprover("ana is not among the approvers of this request (role:oncall): nothing was changed", "i-3"),
    AlreadyApproved("ana already approved this request", "i-4"),
    McpServerNotFound("there is no MCP server named 'time'"),
    McpServerExists("an MCP server named 'time' is there already"),
    McpServerInvalid("url: a web address starts with https://"),
    SignInFailed("cannot sign in to notes: the server offers no sign-in"),
    AskInvalid("title: String should have at most 200 characters"),
    TooManyAsks("20 requests from programs are already waiting for the person"),
]


def test_every_row_of_the_table_is_tried_here():
    assert sorted(type(exc).code for exc in SAMPLES) == sorted(BY_CODE)
    assert RESULT.errors and RESULT.warnings  # the sequence samples carry both


@pytest.fixture
def app(engine_slot: EngineSlot) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())

    @app.get("/api/test-raise/{index}")
    async def raising(index: int) -> None:
        raise SAMPLES[index]

    @app.get("/not-api/raise")
    async def page() -> None:
        raise NotFound("a page's own failure")

    return app


@pytest.fixture
async def remote(app: FastAPI) -> AsyncIterator[RemoteEngine]:
    ops = RemoteEngine("http://test",
                       client=httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test"))
    yield ops
    await ops.close()


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=[type(e).code for e in SAMPLES])
async def test_a_route_answers_the_family_status_and_the_code_and_the_client_raises_the_same_class(
        remote: RemoteEngine, index: int):
    sent = SAMPLES[index]
    answer = await remote._client.get(f"/api/test-raise/{index}")
    assert answer.status_code == type(sent).status
    assert answer.json() == body_of(sent) and answer.json()["code"] == type(sent).code
    with pytest.raises(SeqDeskError) as raised:
        await remote._request("GET", f"/api/test-raise/{index}")
    back = raised.value
    assert type(back) is type(sent)
    assert str(back) == str(sent)
    for field in ("candidates", "prefix", "fields"):
        assert getattr(back, field, None) == getattr(sent, field, None), field
    if isinstance(sent, RunArgsError):
        assert isinstance(back, RunArgsError) and back.problems == sent.problems
    if isinstance(sent, DslError):
        assert isinstance(back, DslError)
        assert [p.to_json() for p in back.problems] == [p.to_json() for p in sent.problems]
    if isinstance(sent, InvalidSequenceError):
        assert isinstance(back, InvalidSequenceError)
        assert [p.to_json() for p in back.result.warnings] == [p.to_json() for p in sent.result.warnings]


async def test_the_fields_a_client_acts_on_are_in_the_body(remote: RemoteEngine):
    ambiguous = (await remote._client.get(f"/api/test-raise/{[type(e) for e in SAMPLES].index(AmbiguousRunIdError)}"))
    assert ambiguous.json()["candidates"] == ["0911dd99aaaa", "0911dd99bbbb"]
    invalid = (await remote._client.get(f"/api/test-raise/{[type(e) for e in SAMPLES].index(InvalidSequenceError)}"))
    body = invalid.json()
    assert body["detail"].startswith("the sequence is not valid: ") and body["ok"] is False
    assert [p["code"] for p in body["errors"]] == [p.code for p in RESULT.errors]


async def test_a_leaf_without_a_code_of_its_own_comes_back_as_its_family(remote: RemoteEngine, app: FastAPI):
    @app.get("/api/test-raise-leaf")
    async def leaf() -> None:
        raise InteractionNotFoundError("there is no interaction nope", "nope")

    answer = await remote._client.get("/api/test-raise-leaf")
    assert answer.status_code == 404
    assert answer.json() == {"detail": "there is no interaction nope", "code": "not-found"}
    with pytest.raises(NotFound, match="there is no interaction nope"):
        await remote._request("GET", "/api/test-raise-leaf")


async def test_an_answer_without_a_code_is_raised_as_the_family_of_its_status(remote: RemoteEngine):
    with pytest.raises(NotFound, match="there is no API route GET /api/nowhere"):
        await remote._request("GET", "/api/nowhere")  # the fallback answers before any route
    with pytest.raises(TooLarge, match="larger than the limit"):
        await remote.create({"name": "big", "description": "x" * 3_000_000, "groups": []})


async def test_a_page_keeps_its_own_answer_to_a_failure(app: FastAPI):
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.get("/not-api/raise")
    assert answer.status_code == 500 and "not-found" not in answer.text  # not the API's JSON
