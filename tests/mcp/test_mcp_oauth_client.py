"""Signing in with a client made in the server's own console (a pre-registered OAuth client), over
real streamable HTTP on loopback: `auth_server.py oauth PORT --no-registration CLIENT_ID [SECRET]`
refuses every registration and knows only that client (and checks its secret when it has one).
"""

from __future__ import annotations

import json
import logging

import pytest
from support.mcp_auth import CTX, REDIRECT, T, auth_server, follow_sign_in, http_config, query_of, stats
from support.waiting import within

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.tools.registry import Registry
from gui.mcp.auth import StoredTokens
from gui.mcp.client import McpConnection
from gui.mcp.config import JsonMcpSettings, McpServerConfig
from gui.mcp.oauth_client import has_client_secret, set_client_secret
from gui.mcp.secrets import FileSecrets, key
from gui.mcp.sign_in import SignInError, SignIns


async def sign_in(sign_ins: SignIns, config: McpServerConfig) -> None:
    url = await sign_ins.start(config, REDIRECT)
    assert url is not None
    answer = query_of(await follow_sign_in(url))
    done = sign_ins.answer(answer.get("state"), answer.get("code"), answer.get("iss"))
    await within(done.finished.wait(), "the sign-in to finish")
    assert done.error is None


@pytest.fixture
def secrets(tmp_path) -> FileSecrets:
    return FileSecrets(tmp_path / "mcp-secrets.json")


async def connect_and_call(config: McpServerConfig, secrets: FileSecrets, registry: Registry) -> str:
    conn = McpConnection(config, registry, NoopElicitationHandler(), backoff=(30.0, 30.0), secrets=secrets)
    try:
        await conn.start()
        state = await conn.wait_for("connected", "down", timeout=T)
        assert state.status == "connected", state.last_error
        return str(await registry.get(f"{config.name}.whoami").call({}, CTX))
    finally:
        await conn.stop()


async def test_a_pre_registered_client_id_signs_in_without_registering(secrets, registry):
    async with auth_server("oauth", "--no-registration", "seqdesk-console-id") as base:
        config = http_config("corp", f"{base}/mcp", oauth_client_id="seqdesk-console-id")
        await sign_in(SignIns(secrets), config)
        assert await connect_and_call(config, secrets, registry) == "client seqdesk-console-id with mcp"
        seen = await stats(base)
        assert seen.get("register", 0) == 0 and seen["token:authorization_code"] == 1
        info = await StoredTokens(secrets, "corp", REDIRECT, "seqdesk-console-id").get_client_info()
        assert info is not None and info.token_endpoint_auth_method == "none" and info.client_secret is None
        assert [str(u) for u in info.redirect_uris or []] == [REDIRECT]


async def test_a_pre_registered_client_with_a_secret_sends_it_and_a_wrong_one_is_refused(secrets, registry, tmp_path,
                                                                                         caplog):
    caplog.set_level(logging.DEBUG)
    async with auth_server("oauth", "--no-registration", "console-id", "s3cret-value") as base:
        config = http_config("corp", f"{base}/mcp", oauth_client_id="console-id")
        set_client_secret(secrets, "corp", "wrong-secret")
        sign_ins = SignIns(secrets)
        url = await sign_ins.start(config, REDIRECT)
        assert url is not None
        answer = query_of(await follow_sign_in(url))
        refused = sign_ins.answer(answer["state"], answer["code"])
        await within(refused.finished.wait(), "the refused sign-in to finish")
        assert refused.error and "secret" in refused.error.lower()
        assert not StoredTokens(secrets, "corp").has_tokens()

        assert set_client_secret(secrets, "corp", "  s3cret-value  ")  # trimmed
        info = await StoredTokens(secrets, "corp", REDIRECT, "console-id").get_client_info()
        assert info is not None and info.token_endpoint_auth_method == "client_secret_post"
        assert info.client_secret == "s3cret-value"
        await sign_in(sign_ins, config)
        assert await connect_and_call(config, secrets, registry) == "client console-id with mcp"
        assert (await stats(base)).get("register", 0) == 0
        # The secret is kept once, under its own key, never inside the kept registration.
        assert "s3cret-value" not in (secrets.get(key("corp", "oauth-client")) or "")
        assert (tmp_path / "mcp-secrets.json").read_text().count("s3cret-value") == 1
    assert "s3cret-value" not in caplog.text and "wrong-secret" not in caplog.text  # never logged, even at DEBUG


async def test_without_a_client_id_the_sign_in_says_registration_is_refused_and_a_client_id_is_needed(secrets):
    async with auth_server("oauth", "--no-registration", "console-id") as base:
        with pytest.raises(SignInError) as said:
            await SignIns(secrets).start(http_config("corp", f"{base}/mcp"), REDIRECT)
        words = str(said.value)
        assert "does not let SeqDesk register itself" in words and "Client ID" in words
        assert not StoredTokens(secrets, "corp").has_tokens()


async def test_changing_or_clearing_the_client_forgets_the_registration_and_tokens(tmp_path):
    secrets = FileSecrets(tmp_path / "mcp-secrets.json")
    store = JsonMcpSettings(tmp_path / "mcp-servers.json", secrets)
    config = http_config("corp", "https://corp.example/mcp", oauth_client_id="one")
    await store.save(config)

    def keep_sign_in() -> None:
        secrets.set(key("corp", "oauth-client"), "{}")
        secrets.set(key("corp", "oauth-tokens"), "{}")

    def kept() -> bool:
        return bool(secrets.get(key("corp", "oauth-client")) or secrets.get(key("corp", "oauth-tokens")))

    keep_sign_in()
    await store.save(config.model_copy(update={"trusted": True}))  # another change: the sign-in stays
    assert kept()
    await store.save(config.model_copy(update={"oauth_client_id": "two"}))
    assert not kept()
    keep_sign_in()
    await store.save(config.model_copy(update={"oauth_client_id": None}))
    assert not kept()

    keep_sign_in()
    assert set_client_secret(secrets, "corp", "abc") and not kept() and has_client_secret(secrets, "corp")
    keep_sign_in()
    assert not set_client_secret(secrets, "corp", "abc") and kept()  # the same secret again: nothing forgotten
    assert set_client_secret(secrets, "corp", None) and not kept() and not has_client_secret(secrets, "corp")

    file = json.loads((tmp_path / "mcp-servers.json").read_text(encoding="utf-8"))
    assert "oauth_client_id" not in file["servers"][0]  # cleared: the file is as before the field existed
    await store.save(config)
    assert json.loads((tmp_path / "mcp-servers.json").read_text())["servers"][0]["oauth_client_id"] == "one"
    set_client_secret(secrets, "corp", "abc")
    assert "abc" not in (tmp_path / "mcp-servers.json").read_text()
    assert await store.delete("corp") and not has_client_secret(secrets, "corp")


@pytest.mark.parametrize(("value", "problem"), [("   ", "it is empty"), ("x" * 513, "longer than 512"),
                                                 ("a\tb", "control character"), ("a\nb", "control character")])
def test_a_client_id_or_secret_that_cannot_be_used_is_refused_in_words(secrets, value, problem):
    with pytest.raises(ValueError, match=problem):
        http_config("corp", "https://corp.example/mcp", oauth_client_id=value)
    with pytest.raises(ValueError, match=f"Client secret: .*{problem}"):
        set_client_secret(secrets, "corp", value)
    assert not has_client_secret(secrets, "corp")
    with pytest.raises(ValueError, match="web address"):
        McpServerConfig(name="local", command="echo", oauth_client_id="id")
