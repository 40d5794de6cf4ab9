"""Servers that do not let everybody in, over real streamable HTTP on loopback (`auth_server.py`):

- one that needs a header (an API key), which the connection sends;
- one that answers 401 to everything: it is not tried again by itself, and says it needs a sign-in;
- one protected by OAuth with the SDK's own server-side auth: the whole sign-in (discovery, dynamic
  client registration, the browser's visit to the sign-in page, the callback with code and state,
  the token exchange), then the tokens kept in the secret store, reused by the next connection, and
  refreshed when they expire.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time

import httpx
import pytest
from support.mcp_auth import CTX, REDIRECT, T, auth_server, follow_sign_in, http_config, query_of, stats
from support.waiting import wait_until, within

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.errors import ToolError
from gui.core.tools.registry import Registry
from gui.mcp.auth import StoredTokens
from gui.mcp.client import McpConnection
from gui.mcp.config import McpServerConfig
from gui.mcp.secrets import FileSecrets, SecretStore, key
from gui.mcp.sign_in import SignInError, SignIns


@pytest.fixture
def secrets(tmp_path) -> FileSecrets:
    return FileSecrets(tmp_path / "mcp-secrets.json")


@pytest.fixture
async def connections(registry: Registry):
    made: list[McpConnection] = []

    def _make(config: McpServerConfig, secrets: SecretStore, backoff: tuple[float, float] = (30.0, 30.0)):
        conn = McpConnection(config, registry, NoopElicitationHandler(), backoff=backoff, secrets=secrets)
        made.append(conn)
        return conn

    yield _make
    await asyncio.gather(*(c.stop() for c in made))


async def test_a_server_that_needs_a_header_gets_it_and_without_it_says_so(connections, secrets, registry):
    async with auth_server("header", "X-Api-Key", "k-123") as base:
        good = connections(http_config("keyed", f"{base}/mcp", headers={"X-Api-Key": "k-123"}), secrets)
        await good.start()
        state = await good.wait_for("connected", "down", timeout=T)
        assert state.status == "connected", state.last_error
        assert state.protocol  # the version it agreed on, shown beside the state
        assert await registry.get("keyed.whoami").call({}, CTX) == "a caller with the header"

        bad = connections(http_config("unkeyed", f"{base}/mcp", headers={"X-Api-Key": "wrong"}), secrets)
        await bad.start()
        state = await bad.wait_for("down", timeout=T)
        assert state.needs_sign_in and state.retry_in is None
        assert "needs you to sign in" in (state.last_error or "")
        assert "Server returned an error response" not in (state.last_error or "")


async def test_a_server_that_refuses_is_not_tried_again_until_asked(connections, secrets):
    async with auth_server("refuse") as base:
        conn = connections(http_config("locked", f"{base}/mcp"), secrets, backoff=(0.05, 0.05))
        await conn.start()
        state = await conn.wait_for("down", timeout=T)
        assert state.needs_sign_in and state.retry_in is None
        asked = (await stats(base))["mcp"]
        # With a backoff of 0.05 s a retrying connection would have tried about 20 times within 1 s.
        with pytest.raises(TimeoutError):
            await conn.wait_for("connecting", "connected", timeout=1.0)
        assert (await stats(base))["mcp"] == asked

        conn.retry_now()  # the person asks: exactly one more attempt
        await conn.wait_for("connecting", timeout=T)
        state = await conn.wait_for("down", timeout=T)
        assert state.needs_sign_in
        assert (await stats(base))["mcp"] > asked

        with pytest.raises(SignInError) as refused:  # it offers no sign-in: said in words
            await SignIns(secrets).start(conn.config, REDIRECT)
        assert "register" in str(refused.value) or "sign" in str(refused.value)


async def sign_in(sign_ins: SignIns, config: McpServerConfig, on_signed_in=None) -> None:
    url = await sign_ins.start(config, REDIRECT, on_signed_in=on_signed_in)
    assert url is not None and url.startswith(str(config.url).removesuffix("/mcp"))
    back = await follow_sign_in(url)
    assert back.startswith(REDIRECT + "?")
    answer = query_of(back)
    sign_in = sign_ins.answer(answer.get("state"), answer.get("code"), answer.get("iss"))
    await within(sign_in.finished.wait(), "the sign-in to finish")
    assert sign_in.error is None


async def test_the_whole_oauth_sign_in_then_tokens_are_kept_and_reused(connections, secrets, registry, tmp_path):
    async with auth_server("oauth") as base:
        config = http_config("guarded", f"{base}/mcp")
        conn = connections(config, secrets)
        await conn.start()
        state = await conn.wait_for("down", timeout=T)
        assert state.needs_sign_in  # before signing in: the state says so, nothing retries

        sign_ins = SignIns(secrets)
        await sign_in(sign_ins, config, on_signed_in=lambda _name: conn.retry_now())
        state = await conn.wait_for("connected", timeout=T)
        assert "guarded.whoami" in state.tools
        who = await registry.get("guarded.whoami").call({}, CTX)
        assert who.startswith("client ") and who.endswith("with mcp")
        seen = await stats(base)
        assert (seen["register"], seen["authorize"], seen["token:authorization_code"]) == (1, 1, 1)

        kept = json.loads((tmp_path / "mcp-secrets.json").read_text(encoding="utf-8"))
        assert set(kept) == {key("guarded", "oauth-tokens"), key("guarded", "oauth-client")}
        assert stat.S_IMODE(os.stat(tmp_path / "mcp-secrets.json").st_mode) == 0o600

        await conn.stop()
        again = connections(config, secrets)  # the next start: the kept token, no new sign-in
        await again.start()
        assert (await again.wait_for("connected", "down", timeout=T)).status == "connected"
        seen = await stats(base)
        assert (seen["register"], seen["authorize"], seen["token:authorization_code"]) == (1, 1, 1)
        assert await registry.get("guarded.whoami").call({}, CTX) == who


async def wait_refused(base: str, secrets: SecretStore, name: str) -> None:
    """Until the access token the server gave has expired on both sides (it lives 1 s)."""
    kept = json.loads(secrets.get(key(name, "oauth-tokens")) or "{}")
    token = kept["token"]["access_token"]

    async def refused() -> bool:
        return time.time() > kept["expires_at"] and (await http.post(
            f"{base}/mcp", json={}, headers={"Authorization": f"Bearer {token}"})).status_code == 401

    async with httpx.AsyncClient(timeout=T) as http:
        await wait_until(refused, "the access token to expire on both sides", timeout=T, every=0.1)


async def test_an_expired_token_is_refreshed_before_it_is_used(connections, secrets):
    async with auth_server("oauth", "--token-seconds", "1") as base:
        config = http_config("guarded", f"{base}/mcp")
        await sign_in(SignIns(secrets), config)
        await wait_refused(base, secrets, "guarded")
        conn = connections(config, secrets)
        await conn.start()
        assert (await conn.wait_for("connected", "down", timeout=T)).status == "connected"
        seen = await stats(base)
        assert seen["token:refresh_token"] >= 1 and seen["authorize"] == 1


async def test_a_token_refused_before_its_time_is_refreshed_once(connections, secrets):
    async with auth_server("oauth", "--token-seconds", "1") as base:
        config = http_config("guarded", f"{base}/mcp")
        await sign_in(SignIns(secrets), config)
        await wait_refused(base, secrets, "guarded")
        data = json.loads(secrets.get(key("guarded", "oauth-tokens")) or "{}")
        secrets.set(key("guarded", "oauth-tokens"), json.dumps(data | {"expires_at": time.time() + 3600}))
        conn = connections(config, secrets)  # it believes the token is good; the server says 401
        await conn.start()
        assert (await conn.wait_for("connected", "down", timeout=T)).status == "connected"
        seen = await stats(base)
        assert seen["token:refresh_token"] >= 1 and seen["authorize"] == 1


async def test_a_token_taken_back_during_a_session_fails_the_call_in_words_then_is_refreshed(
        connections, secrets, registry):
    async with auth_server("oauth") as base:
        config = http_config("guarded", f"{base}/mcp")
        await sign_in(SignIns(secrets), config)
        conn = connections(config, secrets)
        await conn.start()
        assert (await conn.wait_for("connected", "down", timeout=T)).status == "connected"
        async with httpx.AsyncClient(timeout=T) as http:
            assert (await http.post(f"{base}/forget-access-tokens")).status_code == 200
        with pytest.raises(ToolError, match="needs you to sign in"):
            await within(registry.get("guarded.whoami").call({}, CTX), "the call's refusal")
        await conn.wait_for("connecting", "down", timeout=T)  # the session ends at once: it reconnects
        state = await conn.wait_for("connected", "down", timeout=T)  # refreshed, without a person
        assert state.status == "connected", state.last_error
        assert (await stats(base))["token:refresh_token"] == 1
        assert (await registry.get("guarded.whoami").call({}, CTX)).startswith("client ")


async def test_only_the_state_of_a_sign_in_under_way_is_answered(secrets):
    async with auth_server("oauth") as base:
        config = http_config("guarded", f"{base}/mcp")
        sign_ins = SignIns(secrets)
        url = await sign_ins.start(config, REDIRECT)
        assert url is not None
        answer = query_of(await follow_sign_in(url))
        for state in (None, "", "forged-" + answer["state"], answer["state"][:-1]):
            with pytest.raises(LookupError):
                sign_ins.answer(state, "code-of-an-attacker")
        assert not StoredTokens(secrets, "guarded").has_tokens()
        sign_in = sign_ins.answer(answer["state"], answer["code"])
        await within(sign_in.finished.wait(), "the sign-in to finish")
        assert sign_in.error is None and StoredTokens(secrets, "guarded").has_tokens()
        with pytest.raises(LookupError):  # a link used once is used up
            sign_ins.answer(answer["state"], answer["code"])


async def test_a_refused_sign_in_says_why_and_keeps_nothing(secrets):
    async with auth_server("oauth") as base:
        config = http_config("guarded", f"{base}/mcp")
        sign_ins = SignIns(secrets)
        url = await sign_ins.start(config, REDIRECT)
        assert url is not None
        state = query_of(url)["state"]
        sign_in = sign_ins.answer(state, None, error="access_denied", description="the person said no")
        await within(sign_in.finished.wait(), "the refused sign-in to finish")
        assert sign_in.error == "the server did not let you in (access_denied: the person said no)"
        assert not StoredTokens(secrets, "guarded").has_tokens()


async def test_the_connection_keeps_how_it_was_refused_and_a_step_up_sign_in_asks_for_old_and_new_scopes(
        connections, secrets):
    from urllib.parse import parse_qs, urlsplit

    from gui.mcp.refusal import Challenge

    async with auth_server("oauth") as base:
        config = http_config("guarded", f"{base}/mcp")
        conn = connections(config, secrets)
        await conn.start()
        await conn.wait_for("down", timeout=T)
        challenge = conn.sign_in_wanted()
        assert challenge is not None and challenge.status == 401 and not challenge.step_up
        assert "resource_metadata=" in challenge.www_authenticate

        sign_ins = SignIns(secrets)
        await sign_in(sign_ins, config, on_signed_in=lambda _name: conn.signed_in())
        await conn.wait_for("connected", timeout=T)
        assert conn.challenge is None and conn.sign_in_wanted() is None  # nothing refused now

        # A call that needs more (a 403 insufficient_scope, replayed for the sign-in): old and new scopes.
        more = Challenge(403, f'Bearer error="insufficient_scope", scope="mcp extra", '
                              f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"')
        page = await sign_ins.start(config, REDIRECT, challenge=more)
        assert page is not None
        assert set(parse_qs(urlsplit(page).query)["scope"][0].split()) == {"mcp", "extra"}
        sign_ins.cancel("guarded")


def test_the_secret_goes_in_the_body_when_the_metadata_lists_that_else_by_http_basic():
    from gui.mcp.oauth_client import pre_registered, secret_method

    assert secret_method(["client_secret_basic"]) == "client_secret_basic"
    assert secret_method(None) == "client_secret_basic"  # RFC 8414's default
    assert secret_method(["client_secret_post", "client_secret_basic"]) == "client_secret_post"
    assert pre_registered("id", "s", None, "client_secret_basic").token_endpoint_auth_method == "client_secret_basic"
    assert pre_registered("id", None, None, "client_secret_basic").token_endpoint_auth_method == "none"
