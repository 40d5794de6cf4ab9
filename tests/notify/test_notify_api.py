"""`GET/PUT /api/settings/notifications` and its test route, behind the app's gates."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from support.listeners import http_listener

from gui.api import register_api
from gui.api.notifications import DEVICE_SCOPE_KEY
from gui.api.request_gate import Served
from gui.notify import Notifier, NotifySettingsStore

SMTP = {"host": "mail.example.org", "port": 465, "security": "ssl", "username": "me", "password": "hunter22",
        "from_addr": "seqdesk@example.org", "to_addr": "me@example.org"}


@pytest.fixture
def notifier(tmp_path) -> Notifier:
    return Notifier(NotifySettingsStore(tmp_path), delays=())


@pytest.fixture
async def client(engine_slot, notifier) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process(), notifier=lambda: notifier)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def test_put_then_get_never_gives_the_password_back(client):
    put = await client.put("/api/settings/notifications",
                           json={"webhook_url": "https://example.org/hook", "ntfy_url": None, "smtp": SMTP})
    assert put.status_code == 200, put.text
    got = (await client.get("/api/settings/notifications")).json()
    assert got["webhook_url"] == "https://example.org/hook" and got["ntfy_url"] is None
    assert got["smtp"]["host"] == "mail.example.org" and got["smtp"]["password_set"] is True
    assert "hunter22" not in (await client.get("/api/settings/notifications")).text
    assert got["status"]["webhook"]["last_error"] is None
    # what GET gave, sent back as it is (no password in it), keeps the password
    back = {k: v for k, v in got.items() if k != "status"}
    assert (await client.put("/api/settings/notifications", json=back)).status_code == 200
    assert (await client.get("/api/settings/notifications")).json()["smtp"]["password_set"] is True


@pytest.mark.parametrize(("body", "says"), [
    ({"webhook_url": "javascript:alert(1)"}, "webhook_url"),
    ({"smtp": {**SMTP, "port": 0}}, "the mail server's port: Input should be greater than or equal to 1"),
    ({"what": 1}, "what: Extra inputs are not permitted"),
    ([], "the body must be settings like"),
])
async def test_bad_settings_are_422_saying_where(client, body, says):
    answer = await client.put("/api/settings/notifications", json=body)
    assert answer.status_code == 422 and says in answer.json()["detail"]


async def test_a_form_post_is_refused_before_it_changes_anything(client):
    answer = await client.put("/api/settings/notifications", content=b"webhook_url=http://evil",
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 415


async def test_send_a_test_over_the_api(client):
    with http_listener() as hook:
        assert (await client.put("/api/settings/notifications", json={"webhook_url": hook.url})).status_code == 200
        answer = await client.post("/api/settings/notifications/test", json={"channel": "webhook"})
        assert answer.json() == {"channel": "webhook", "ok": True, "error": None}
        assert hook.received[0].body["event"] == "test"
    missing = await client.post("/api/settings/notifications/test", json={"channel": "email"})
    assert missing.status_code == 422 and "set the email channel up first" in missing.json()["detail"]


async def test_a_paired_phone_cannot_redirect_the_notices(notifier, engine_slot):
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process(), notifier=lambda: notifier)

    async def as_phone(scope, receive, send):
        scope[DEVICE_SCOPE_KEY] = "phone-1"
        await app(scope, receive, send)

    transport = httpx.ASGITransport(app=as_phone)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as phone:
        answer = await phone.put("/api/settings/notifications", json={"webhook_url": "https://evil.example/"})
        assert answer.status_code == 403 and "on the computer" in answer.json()["detail"]
        assert (await phone.get("/api/settings/notifications")).json()["webhook_url"] is None
