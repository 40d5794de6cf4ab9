"""Signing in with the company's OpenID Connect provider: a real provider (`oidc-provider-mock`, a
local server in a thread) and the team server's sign-in pages, through the whole authorization code
flow with PKCE. The provider says who someone is; the accounts say whether they are a person here."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from support.people import Team, team_app

from gui.api.auth import COOKIE
from gui.core.door import Engine
from gui.people import OidcConfig, OidcSignIn

# found, not imported: the provider (Flask and its kin) is imported by the fixture that starts it
pytestmark = pytest.mark.skipif(find_spec("oidc_provider_mock") is None, reason="oidc-provider-mock is not installed")


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    import oidc_provider_mock

    users = [oidc_provider_mock.User(sub="0f3c-li", claims={"preferred_username": "Li.Wei", "email": "li.wei@ex.org"}),
             oidc_provider_mock.User(sub="9a1d-stranger", claims={"preferred_username": "stranger"})]
    with oidc_provider_mock.run_server_in_thread(require_nonce=True, user_claims=users) as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture
async def team(engine: Engine, provider: str) -> Team:
    team = await team_app(engine, oidc=OidcSignIn(OidcConfig(issuer=provider, client_id="seqdesk",
                                                            client_secret="a-client-secret")))
    await team.accounts.add("li.wei", ["approver"])  # invited, no password: the company sign-in is enough
    return team


async def through_provider(c: httpx.AsyncClient, who: str, next_path: str = "/runs") -> httpx.Response:
    """Start at SeqDesk, choose `who` at the provider, and come back: SeqDesk's answer to the callback."""
    started = await c.get("/login/oidc", params={"next": next_path})
    assert started.status_code == 303
    authorize = started.headers["location"]
    query = parse_qs(urlsplit(authorize).query)
    assert query["code_challenge_method"] == ["S256"] and query["nonce"] and query["state"]
    async with httpx.AsyncClient(timeout=10) as browser:
        form = await browser.get(authorize)
        assert form.status_code == 200
        chosen = await browser.post(authorize, data={"sub": who})
    assert chosen.status_code in (302, 303), chosen.text[:500]
    back = chosen.headers["location"]
    assert back.startswith("http://test/login/oidc/callback?")
    return await c.get(back.removeprefix("http://test"))


def app_client(team: Team) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=team.app), base_url="http://test")


async def test_a_person_signs_in_with_the_company_account(team: Team):
    async with app_client(team) as c:
        page = await c.get("/login")
        assert 'data-testid="oidc-sign-in"' in page.text and "Sign in with your company account" in page.text
        done = await through_provider(c, "0f3c-li")
        assert done.status_code == 303 and done.headers["location"] == "/runs", done.text[-400:]
        cookie = done.headers["set-cookie"].lower()
        assert COOKIE in cookie and "httponly" in cookie and "samesite=strict" in cookie
        assert (await c.get("/api/me")).json() == {"name": "li.wei", "roles": ["approver"]}


async def test_someone_the_provider_knows_but_no_admin_added_is_refused(team: Team):
    async with app_client(team) as c:
        refused = await through_provider(c, "9a1d-stranger")
        assert refused.status_code == 403 and "stranger signed in with the company account, but is not a person" \
            in refused.text and COOKIE not in refused.cookies
        assert (await c.get("/api/me")).status_code == 401


async def test_an_answer_the_sign_in_did_not_start_is_refused(team: Team):
    async with app_client(team) as c:
        forged = await c.get("/login/oidc/callback", params={"code": "abc", "state": "made-up"})
        assert forged.status_code == 401 and "was not started here" in forged.text
        denied = await c.get("/login/oidc/callback", params={"error": "access_denied"})
        assert denied.status_code == 401 and "access_denied" in denied.text
        assert (await c.get("/api/me")).status_code == 401
