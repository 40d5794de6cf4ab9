"""The pairing gate in-process: a request from another address (as a phone's) is refused until it
pairs with a one-time code; codes work once and expire; wrong codes are rate-limited."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.request_gate import Served
from gui.phone import PhoneAccess
from gui.phone.devices import PairingCodes
from gui.prefs import PrefsFile

PHONE_IP = "192.0.2.77"


@pytest.fixture
def access(tmp_path) -> PhoneAccess:
    served = Served.in_process()
    access = PhoneAccess(served, None, address=lambda: "192.0.2.1")
    access.open(tmp_path, PrefsFile(tmp_path, "preferences"))
    return access


@pytest.fixture
def app(engine_slot, access) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=access.served, phone=access)
    return app


def client_from(app: FastAPI, ip: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(ip, 40000)), base_url="http://test")


@pytest.fixture
async def phone(app) -> AsyncIterator[httpx.AsyncClient]:
    async with client_from(app, PHONE_IP) as c:
        yield c


def live_code(access: PhoneAccess) -> str:
    code, _ = access.codes.new()
    return code


async def test_another_address_gets_nothing_until_paired(phone):
    assert (await phone.get("/api/sequences")).status_code == 401
    page = await phone.get("/inbox")
    assert page.status_code == 401 and "This phone is not paired" in page.text
    assert (await phone.get("/api/health")).json() == {"ok": True}  # no version to a stranger


async def test_a_code_pairs_once_and_the_cookie_opens_the_api(phone, access, app):
    code = live_code(access)
    shown = await phone.get(f"/pair/{code}")
    assert shown.status_code == 200 and "Pair this phone" in shown.text
    assert access.codes.check(code)  # looking at the page burns nothing (link previews, scanners)
    paired = await phone.post(f"/pair/{code}")
    assert paired.status_code == 303 and paired.headers["location"] == "/inbox"
    cookie = paired.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=" in cookie
    assert (await phone.get("/api/sequences")).status_code == 200
    async with client_from(app, "192.0.2.78") as replay:
        again = await replay.post(f"/pair/{code}")
        assert again.status_code == 410 and "does not work any more" in again.text
    [paired_phone] = access.phones.list()
    assert (await phone.get("/api/phone")).status_code == 403  # a phone is not the computer
    access.forget(paired_phone.phone_id)
    assert (await phone.get("/api/sequences")).status_code == 401


async def test_only_the_secrets_hash_is_kept(phone, access, tmp_path):
    paired = await phone.post(f"/pair/{live_code(access)}")
    value = paired.cookies["seqdesk_phone"]
    kept = (tmp_path / "paired-phones.json").read_text()
    assert value.split(".", 1)[1] not in kept and (tmp_path / "paired-phones.json").stat().st_mode & 0o077 == 0


async def test_wrong_codes_are_rate_limited(phone, access):
    for _ in range(10):
        assert (await phone.post("/pair/guess")).status_code == 410
    code = live_code(access)
    assert (await phone.post(f"/pair/{code}")).status_code == 429  # even the right one, for a minute


def test_a_code_expires():
    now = [0.0]
    codes = PairingCodes(clock=lambda: now[0], seconds=120)
    code, _ = codes.new()
    now[0] = 121
    assert not codes.check(code) and not codes.use(code)
    fresh, _ = codes.new()
    older, _ = codes.new()  # a new code ends the one before
    assert not codes.use(fresh) and codes.use(older) and not codes.use(older)


async def test_the_computer_is_unchanged(app):
    async with client_from(app, "127.0.0.1") as desktop:
        assert (await desktop.get("/api/sequences")).status_code == 200
        state = (await desktop.get("/api/phone")).json()
        assert state["on"] is False and state["phones"] == []
        refused = await desktop.put("/api/phone", json={"on": True})
        assert refused.status_code == 409 and "without a fixed port" in refused.json()["detail"]


async def test_the_phones_listener_offers_no_token_form(tmp_path, engine_slot):
    served = Served.in_process()
    access = PhoneAccess(served, None, address=lambda: "192.0.2.1")
    access.open(tmp_path, PrefsFile(tmp_path, "preferences"))
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token="a-token-long-enough-0123", served=served, phone=access)
    access.listens_at = lambda server: True  # type: ignore[method-assign]  # as if on the phones' listener
    async with client_from(app, PHONE_IP) as neighbour:
        form = await neighbour.get("/login")
        assert form.status_code == 401 and "This phone is not paired" in form.text
        guess = await neighbour.post("/login", data={"token": "guess"})
        assert guess.status_code == 401 and "not paired" in guess.text
        with_token = await neighbour.get("/api/sequences", headers={"Authorization": "Bearer a-token-long-enough-0123"})
        assert with_token.status_code == 200  # a program with the token still may
