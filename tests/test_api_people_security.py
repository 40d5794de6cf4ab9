"""A team server's bad input and security: a token of a removed person, a reused or expired invite
link, wrong passwords and wrong tokens, cookies, signing out everywhere, and who is recorded as the
answerer. Each refusal is a status with a sentence, and changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from support.people import PASSWORD, Team, team_app

from gui.api.auth import COOKIE
from gui.core.door import Engine, ProgramAsk
from gui.core.people import SignInThrottle

ASK = {"kind": "approval", "title": "Push", "command": "git push", "asker": "test"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def audited_engine() -> AsyncIterator[Engine]:
    from gui.memory import MemoryAuditLog, MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog())
    yield engine
    await engine.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def team(audited_engine: Engine, clock: Clock) -> Team:
    return await team_app(audited_engine, throttle=SignInThrottle(clock=clock))


def client(team: Team, address: str = "10.0.0.1") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=team.app, client=(address, 4000)),
                             base_url="http://test")


async def sign_in(c: httpx.AsyncClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return await c.post("/login", data={"name": name, "password": password, "next": "/"})


async def test_a_removed_persons_token_is_refused_with_a_sentence_and_changes_nothing(team: Team):
    async with client(team) as c:
        assert (await c.get("/api/me", headers=team.headers("runner"))).json()["name"] == "runner"
        assert (await c.delete("/api/people/runner", headers=team.headers("admin"))).status_code == 200
        before = await team.snapshot()
        refused = await c.post("/api/runs", json={"sequence": "x", "args": {}}, headers=team.headers("runner"))
        assert refused.status_code == 403
        assert "belonged to runner, who was removed" in refused.json()["detail"]
        assert await team.snapshot() == before
        # the name given again starts with nothing of the old one's: the old token stays refused
        await team.accounts.add("runner", ["runner"], PASSWORD)
        assert (await c.get("/api/me", headers=team.headers("runner"))).status_code == 403


async def test_an_invite_link_works_once_and_a_reused_one_is_410_changing_nothing(team: Team):
    code = await team.accounts.add("li.wei", ["approver"])
    assert code is not None
    async with client(team) as c:
        page = await c.get(f"/invite/{code}")
        assert page.status_code == 200 and "Welcome, li.wei" in page.text
        short = await c.post(f"/invite/{code}", data={"password": "short", "again": "short"})
        assert short.status_code == 422 and "at least 10 characters" in short.text
        taken = await c.post(f"/invite/{code}", data={"password": PASSWORD, "again": PASSWORD})
        assert taken.status_code == 303 and COOKIE in taken.cookies
        assert (await c.get("/api/me")).json() == {"name": "li.wei", "roles": ["approver"]}
    before = await team.snapshot()
    async with client(team) as c:
        for method in ("GET", "POST"):
            again = await c.request(method, f"/invite/{code}", data={"password": "another-password-1",
                                                                      "again": "another-password-1"})
            assert again.status_code == 410 and "was used already" in again.text
            assert COOKIE not in again.cookies
        unknown = await c.get("/invite/not-a-code")
        assert unknown.status_code == 410 and "not valid" in unknown.text
    assert await team.snapshot() == before


async def test_an_expired_invite_is_410(team: Team):
    code = await team.accounts.add("late", ["runner"])
    assert code is not None
    team.accounts.clock = lambda: 10**15  # long after the link's 7 days
    async with client(team) as c:
        expired = await c.post(f"/invite/{code}", data={"password": PASSWORD, "again": PASSWORD})
    assert expired.status_code == 410 and "expired" in expired.text


async def test_ten_wrong_passwords_slow_that_name_and_address_for_a_minute_not_for_good(team: Team, clock: Clock):
    async with client(team, "10.0.0.7") as guesser, client(team, "10.0.0.8") as elsewhere:
        for _ in range(10):
            wrong = await sign_in(guesser, "approver", "not-the-password")
            assert wrong.status_code == 401 and "do not match" in wrong.text
        slowed = await sign_in(guesser, "approver")  # even the right password waits: no oracle meanwhile
        assert slowed.status_code == 429 and "wait 60 s" in slowed.text and COOKIE not in slowed.cookies
        # the name is slowed from every address, the address for every name
        assert (await sign_in(elsewhere, "approver")).status_code == 429
        assert (await sign_in(guesser, "runner")).status_code == 429
        assert (await sign_in(elsewhere, "runner")).status_code == 303
        # the owner's token keeps working all along
        assert (await guesser.get("/api/me", headers=team.headers("approver"))).status_code == 200
        clock.now += 61
        back = await sign_in(guesser, "approver")
        assert back.status_code == 303 and COOKIE in back.cookies


async def test_wrong_tokens_are_limited_per_address(team: Team):
    async with client(team, "10.0.0.9") as c:
        for _ in range(10):
            assert (await c.get("/api/runs", headers={"Authorization": "Bearer sdp_wrong"})).status_code == 401
        limited = await c.get("/api/runs", headers={"Authorization": "Bearer sdp_wrong"})
        assert limited.status_code == 429 and "too many wrong tokens" in limited.json()["detail"]
        assert (await c.get("/api/runs", headers=team.headers("runner"))).status_code == 200  # the right one passes


async def test_the_session_cookie_is_httponly_strict_and_sign_out_everywhere_ends_every_session(team: Team):
    async with client(team) as laptop, client(team) as phone:
        signed = await sign_in(laptop, "author")
        cookie = signed.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
        await sign_in(phone, "author")
        assert (await phone.get("/api/me")).status_code == 200
        cross = await laptop.post("/api/sequences", json={}, headers={"Origin": "http://evil.example"})
        assert cross.status_code == 403
        ended = await laptop.post("/logout/everywhere", headers={"Origin": "http://test"})
        assert ended.status_code == 303
        assert (await phone.get("/api/me")).status_code == 401
        assert (await laptop.get("/api/me")).status_code == 401
        page = await phone.get("/runs")
        assert page.status_code == 303 and page.headers["location"].startswith("/login")


async def test_the_answerer_is_the_signed_in_person_and_the_tokens_label_not_the_clients_word(team: Team):
    engine = team.engine
    async with client(team) as c:
        by_token = await engine.ask(ProgramAsk(kind="approval", title="one", command="true", asker="t"))
        answer = await c.post(f"/api/interactions/{by_token.ask_id}/respond", json={"kind": "approval",
                              "decision": "approved"}, headers={**team.headers("approver"), "x-seqdesk-via": "cli"})
        assert answer.status_code == 200
        await sign_in(c, "approver")
        by_session = await engine.ask(ProgramAsk(kind="approval", title="two", command="true", asker="t"))
        answer = await c.post(f"/api/interactions/{by_session.ask_id}/respond",
                              json={"kind": "approval", "decision": "denied"}, headers={"x-seqdesk-via": "mcp"})
        assert answer.status_code == 200
        refused = await engine.ask(ProgramAsk(kind="approval", title="three", command="true", asker="t"))
        runner = await c.post(f"/api/interactions/{refused.ask_id}/respond", json={"kind": "approval",
                              "decision": "approved"}, headers=team.headers("runner"))
        assert runner.status_code == 403
        assert (await engine.get_interaction(refused.ask_id)).status == "pending"
    entries, verdict = await engine.decisions()
    assert verdict.ok
    who = {e.interaction_id: (e.person, e.via, e.token) for e in entries}
    assert who[by_token.ask_id] == ("approver", "cli", "test")
    assert who[by_session.ask_id] == ("approver", "app", None)
    assert refused.ask_id not in who


async def test_a_session_ends_after_its_days(team: Team):
    async with client(team) as c:
        assert (await sign_in(c, "runner")).status_code == 303
        assert (await c.get("/api/me")).status_code == 200
        team.accounts.clock = lambda: 10**15  # long after its 14 days
        assert (await c.get("/api/me")).status_code == 401


async def test_the_desktop_is_as_it_was_no_sign_in_no_people(engine: Engine):
    from fastapi import FastAPI

    from gui.api import register_api
    from gui.api.request_gate import Served
    from gui.context import EngineSlot

    app = FastAPI()
    register_api(app, engine=EngineSlot(engine).for_api, token=None, served=Served.in_process())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        assert (await c.get("/api/runs")).status_code == 200  # one person, on this computer: no sign-in
        assert (await c.post("/api/asks", json=ASK)).status_code in (200, 201, 202)
        for method, path in (("GET", "/api/people"), ("GET", "/api/me"), ("GET", "/login"), ("GET", "/invite/x")):
            assert (await c.request(method, path)).status_code == 404, path
