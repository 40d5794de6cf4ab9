"""With a token, nothing answers a stranger: no route, no page, no socket, and above all no command.

`cmd_run` is set to "always allow" here, so that a request that got through would really run its
command (the last test shows it does, with the right token): the file it would create is the proof.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse

from gui.api import register_api
from gui.api.auth import COOKIE, TokenGate, session_value
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.core.door.engine import Engine

TOKEN = "correct-horse-battery-staple-42"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
T = 5.0

ROUTES = [
    ("GET", "/api/sequences"), ("POST", "/api/sequences"), ("GET", "/api/sequences/x"),
    ("DELETE", "/api/sequences/x"), ("POST", "/api/runs"), ("GET", "/api/runs"), ("GET", "/api/runs/x"),
    ("POST", "/api/runs/x/stop"), ("GET", "/api/interactions"), ("GET", "/api/interactions/x"),
    ("POST", "/api/interactions/x/respond"), ("GET", "/api/events"), ("GET", "/api/nowhere"),
    ("GET", "/_nicegui_ws/socket.io/?EIO=4&transport=polling"), ("POST", "/_nicegui/client/c1/upload/5"),
    ("GET", "/_nicegui/auto/static/abc/data.txt"), ("POST", "/"),
]


@pytest.fixture
def engine(current_engine: Engine) -> Engine:
    current_engine.modes.set("cmd_run", "always-allow")
    return current_engine


@pytest.fixture
def app(engine: Engine, engine_slot: EngineSlot) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=TOKEN, served=Served.in_process())

    @app.get("/")
    async def home() -> HTMLResponse:
        return HTMLResponse("<p>SeqDesk home</p>")

    @app.get("/_nicegui/3.18.0/static/app.js")
    async def asset() -> PlainTextResponse:
        return PlainTextResponse("console.log('asset')")

    return app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


@pytest.fixture
async def trap(engine: Engine, tmp_path: Path) -> Path:
    """A saved sequence whose command, if it ever ran, would create the returned file."""
    target = tmp_path / "pwned"
    tools = json.dumps({"tool": "cmd_run", "args": {"command": f"touch {target}"}}) + " ;"
    await engine.create({"name": "trap", "groups": [{"name": "spring", "in": {}, "out": {}, "tools": tools}]})
    return target


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_route_without_the_token_is_401(client, method, path):
    answer = await client.request(method, path, json={"sequence": "trap"})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "token" in answer.json()["detail"]


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer wrong-token"},
    {"Authorization": f"Bearer {TOKEN}x"},
    {"Authorization": f"Basic {TOKEN}"},
    {"Authorization": TOKEN},
    {"Cookie": f"{COOKIE}={TOKEN}"},
    {"Cookie": f"{COOKIE}={session_value('another token')}"},
])
async def test_a_run_request_without_the_right_credential_runs_nothing(client, engine, trap, headers):
    answer = await client.post("/api/runs", json={"sequence": "trap"}, headers=headers)
    assert answer.status_code == 401
    assert not trap.exists()
    assert await engine.list_runs() == [] and engine.runner.active() == []
    assert await engine.interactions.pending() == []


async def test_with_the_right_bearer_the_same_request_runs(client, engine, trap):
    answer = await client.post("/api/runs", json={"sequence": "trap"}, headers=BEARER)
    assert answer.status_code == 202
    assert (await engine.runner.wait(answer.json()["run_id"], T)).status == "succeeded"
    assert trap.exists()


async def test_health_tells_a_stranger_only_that_the_app_is_up(client):
    assert (await client.get("/api/health")).json() == {"ok": True}
    assert (await client.get("/api/health", headers=BEARER)).json() == {"ok": True, "version": "0.1.0"}


async def test_a_page_without_a_session_redirects_to_the_login_form(client):
    answer = await client.get("/runs/abc", params={"tab": "log"})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/login?next=%2Fruns%2Fabc%3Ftab%3Dlog"
    form = await client.get("/login", params={"next": "/runs/abc"})
    assert form.status_code == 200
    assert 'name="token"' in form.text and 'value="/runs/abc"' in form.text


async def test_logging_in_sets_an_httponly_strict_cookie_without_the_token_and_pages_load(client):
    answer = await client.post("/login", data={"token": TOKEN, "next": "/"})
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={session_value(TOKEN)};")
    assert TOKEN not in cookie
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    home = await client.get("/")  # the client keeps the cookie
    assert home.status_code == 200 and "SeqDesk home" in home.text
    assert (await client.get("/api/sequences")).status_code == 200


async def test_a_wrong_token_at_the_login_form_sets_no_cookie(client):
    answer = await client.post("/login", data={"token": "guess", "next": "/"})
    assert answer.status_code == 401
    assert "set-cookie" not in answer.headers
    assert "That token is not right." in answer.text
    assert (await client.get("/")).status_code == 303


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "runs"])
async def test_login_never_redirects_to_another_site(client, target):
    answer = await client.post("/login", data={"token": TOKEN, "next": target})
    assert answer.headers["location"] == "/"


async def test_a_cookie_sent_from_another_origin_is_refused(client, engine, trap):
    client.cookies.set(COOKIE, session_value(TOKEN))
    answer = await client.post("/api/runs", json={"sequence": "trap"}, headers={"Origin": "http://test:9000"})
    assert answer.status_code == 403
    assert not trap.exists() and await engine.list_runs() == []
    same = await client.get("/api/runs", headers={"Origin": "http://test"})
    assert same.status_code == 200


async def test_the_login_form_refuses_a_post_from_another_origin(client):
    answer = await client.post("/login", data={"token": TOKEN}, headers={"Origin": "http://evil.example"})
    assert answer.status_code == 403 and "set-cookie" not in answer.headers


async def test_logging_out_clears_the_cookie(client):
    await client.post("/login", data={"token": TOKEN, "next": "/"})
    answer = await client.get("/logout")
    assert answer.status_code == 303
    assert f'{COOKIE}=""' in answer.headers["set-cookie"] or "max-age=0" in answer.headers["set-cookie"].lower()


async def test_static_assets_and_the_login_form_are_open(client):
    assert (await client.get("/_nicegui/3.18.0/static/app.js")).status_code == 200
    assert (await client.get("/login")).status_code == 200


async def test_an_oversized_body_from_a_stranger_is_refused_before_it_is_read(client):
    answer = await client.post("/api/sequences", content=b"x" * (3 * 1024 * 1024),
                               headers={"Content-Type": "application/json"})  # past the request gate
    assert answer.status_code == 401


async def _websocket(gate: TokenGate, headers: list[tuple[bytes, bytes]]) -> tuple[list[dict], bool]:
    sent: list[dict] = []
    reached = False

    async def inner(scope, receive, send) -> None:
        nonlocal reached
        reached = True

    gate.app = inner
    scope = {"type": "websocket", "path": "/_nicegui_ws/socket.io/", "headers": headers, "scheme": "ws",
             "query_string": b"EIO=4&transport=websocket"}

    async def receive() -> dict:
        return {"type": "websocket.connect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await gate(scope, receive, send)
    return sent, reached


async def test_the_socket_of_the_pages_needs_the_session_too():
    gate = TokenGate(lambda *a: None, token=TOKEN)
    sent, reached = await _websocket(gate, [(b"host", b"test")])
    assert not reached and sent[0]["type"] == "websocket.close" and sent[0]["code"] == 1008
    cookie = f"{COOKIE}={session_value(TOKEN)}".encode()
    sent, reached = await _websocket(gate, [(b"host", b"test"), (b"cookie", cookie), (b"origin", b"http://test")])
    assert reached and sent == []
    sent, reached = await _websocket(gate, [(b"host", b"test"), (b"cookie", cookie), (b"origin", b"http://evil")])
    assert not reached and sent[0]["code"] == 1008


async def test_after_ten_wrong_tokens_the_right_one_still_passes_and_an_eleventh_wrong_one_gets_429(
        client, engine, trap):
    for _ in range(10):
        assert (await client.get("/api/runs", headers={"Authorization": "Bearer guess"})).status_code == 401
    locked = await client.post("/api/runs", json={"sequence": "trap"}, headers={"Authorization": "Bearer guess"})
    assert locked.status_code == 429
    assert "too many wrong tokens" in locked.json()["error"]
    assert 1 <= int(locked.headers["retry-after"]) <= 60
    assert not trap.exists() and await engine.list_runs() == []  # a wrong token while locked runs nothing
    assert (await client.get("/api/runs", headers=BEARER)).status_code == 200  # the CLI is not locked out
    form = await client.post("/login", data={"token": "guess", "next": "/"})
    assert form.status_code == 429 and "set-cookie" not in form.headers
    assert "Too many wrong tokens" in form.text
    form = await client.post("/login", data={"token": TOKEN, "next": "/inbox"})
    assert form.status_code == 303 and form.headers["location"] == "/inbox" and COOKIE in form.headers["set-cookie"]


async def test_wrong_tokens_at_the_login_form_count_too(client):
    for _ in range(10):
        assert (await client.post("/login", data={"token": "guess", "next": "/"})).status_code == 401
    assert (await client.get("/api/runs", headers={"Authorization": "Bearer guess"})).status_code == 429
    assert (await client.get("/api/runs", headers=BEARER)).status_code == 200


def test_the_lock_out_ends_after_a_minute_and_old_failures_are_forgotten():
    from gui.api.limiter import FailureLimiter

    now = [1000.0]
    limiter = FailureLimiter(clock=lambda: now[0])
    for _ in range(9):
        limiter.failed("a")
    now[0] += 61  # the nine failures are older than a minute now
    limiter.failed("a")
    assert limiter.locked("a") == 0
    for _ in range(9):
        limiter.failed("a")
    assert limiter.locked("a") == pytest.approx(60)
    assert limiter.locked("b") == 0  # another address is not locked out
    now[0] += 30
    limiter.failed("a")  # a wrong token while locked out does not lengthen the lock
    now[0] += 30.5
    assert limiter.locked("a") == 0


@pytest.mark.parametrize(("host", "token", "said"), [
    ("0.0.0.0", None, "without a token"),
    ("192.168.1.5", "short-token", "11 characters"),
    ("0.0.0.0", "x" * 15, "at least 16 characters"),
])
def test_off_loopback_a_missing_or_short_token_is_refused_with_the_reason(host, token, said):
    from gui.serving import token_problem

    problem = token_problem(host, token)
    assert problem is not None and said in problem


def test_on_loopback_no_token_is_needed_but_a_given_one_is_as_long_as_anywhere():
    from gui.serving import token_problem

    assert token_problem("127.0.0.1", None) is None
    assert token_problem("127.0.0.1", "x" * 16) is None
    assert token_problem("0.0.0.0", "x" * 16) is None
    problem = token_problem("::1", "short")  # the right token always passes: only its length stops guessing
    assert problem is not None and "at least 16 characters" in problem and "any program on this computer" in problem


def test_the_app_refuses_to_start_off_loopback_with_a_short_token(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "NICEGUI", "SEQDESK_"))}
    done = subprocess.run([sys.executable, "-m", "gui", "--browser", "--host", "0.0.0.0", "--token", "abc"],
                          env=env | {"SEQDESK_DATA": str(tmp_path)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "at least 16 characters" in done.stderr and "Traceback" not in done.stderr
