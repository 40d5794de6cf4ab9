"""The sign-in callback (`GET /oauth/callback`) sits behind the request gate and the token gate.

Anybody can point a browser at it, and any program on this machine can request it: another site's
page is refused by Origin, a rebound DNS name by Host, a stranger (when the app has a token) is sent
to the login, which brings the person back here; and with every gate passed, a `state` that names
no sign-in under way changes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import unquote

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.mcp.config import CALLBACK_PATH
from gui.mcp.secrets import MemorySecrets
from gui.mcp.sign_in import SignIns
from gui.ui.pages.oauth_callback import answer_callback

TOKEN = "correct-horse-battery-staple-42"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
CALLBACK = "/oauth/callback?state=guessed-state&code=stolen-code"


@pytest.fixture
def sign_ins() -> SignIns:
    return SignIns(MemorySecrets())


def app_with(engine_slot: EngineSlot, sign_ins: SignIns, token: str | None) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=token, served=Served.in_process())

    async def callback(request: Request) -> HTMLResponse:  # as the app's page list serves it
        return await answer_callback(sign_ins, request)

    app.add_api_route(CALLBACK_PATH, callback, methods=["GET"], include_in_schema=False)
    return app


@pytest.fixture
async def client(engine_slot: EngineSlot, sign_ins: SignIns) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app_with(engine_slot, sign_ins, TOKEN))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def test_a_stranger_is_sent_to_the_login_which_brings_them_back(client):
    answer = await client.get(CALLBACK)
    assert answer.status_code == 303
    assert unquote(answer.headers["location"]) == f"/login?next={CALLBACK}"


async def test_another_site_and_another_host_are_refused_before_anything(client):
    assert (await client.get(CALLBACK, headers={**BEARER, "Origin": "https://evil.example"})).status_code == 403
    assert (await client.get(CALLBACK, headers={**BEARER, "Host": "evil.example"})).status_code == 421


async def test_past_the_gates_an_unknown_state_changes_nothing(client, sign_ins):
    answer = await client.get(CALLBACK, headers=BEARER)
    assert answer.status_code == 400
    assert "Not a sign-in SeqDesk started" in answer.text
    assert "stolen-code" not in answer.text and "guessed-state" not in answer.text
    assert sign_ins.pending("anything") is None


async def test_without_a_token_the_request_gate_still_refuses_another_site(engine_slot, sign_ins):
    transport = httpx.ASGITransport(app=app_with(engine_slot, sign_ins, None))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        assert (await c.get(CALLBACK, headers={"Origin": "https://evil.example"})).status_code == 403
        assert (await c.get(CALLBACK)).status_code == 400
