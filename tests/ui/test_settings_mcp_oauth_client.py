"""Settings, a server at a web address that does not let SeqDesk register itself to sign in: the
Client ID (and Client secret) made for SeqDesk in its console, typed when adding the server or
changed later with "Change sign-in", then the whole sign-in through the app's callback.

The server is real (`tests/mcp/auth_server.py oauth PORT --no-registration ID [SECRET]` on loopback);
the person's browser is played by the test, as in test_settings_mcp_auth.py.
"""

from __future__ import annotations

from nicegui.testing import User
from support.i18n_screens import screen_problems
from support.mcp_auth import auth_server, follow_sign_in, stats
from support.ui import WAIT, browser_of, mcp_store, only

from gui.mcp.config import McpServerConfig
from gui.mcp.oauth_client import client_secret


async def add_http(user: User, name: str, url: str, client_id: str = "", secret: str = "") -> None:
    user.find(marker="mcp-name").type(name)
    only(user, "mcp-transport").value = "http"
    user.find(marker="mcp-url").type(url)
    only(user, "mcp-client-id").value = client_id
    only(user, "mcp-client-secret").value = secret
    user.find(marker="mcp-add").click()


async def sign_in_through_the_callback(user: User, name: str, base: str) -> None:
    opened = browser_of(user)
    user.find(marker=f"mcp-sign-in-{name}").click()
    url = await opened()
    assert url.startswith(f"{base}/authorize?")
    back = await follow_sign_in(url)
    page = await user.http_client.get(back.removeprefix("http://test"))
    assert page.status_code == 200, page.text
    await user.open("/settings")
    await user.should_see("Connected · 1 tool", retries=WAIT)


async def test_a_client_id_and_secret_given_when_adding_sign_in_without_registering(user: User):
    async with auth_server("oauth", "--no-registration", "console-id", "s3cret-value") as base:
        await user.open("/settings")
        only(user, "mcp-transport").value = "http"
        await user.should_see("Client ID (optional)")
        await user.should_see("does not let SeqDesk register itself")
        await add_http(user, "corp", f"{base}/mcp", client_id=" console-id ", secret="s3cret-value")
        await user.should_see("This server needs you to sign in", retries=WAIT)
        await user.should_see("Signs in with the Client ID")
        await user.should_see("and a Client secret")
        await user.should_not_see("s3cret-value")
        store = mcp_store()
        (config,) = await store.list()
        assert config.oauth_client_id == "console-id"
        assert client_secret(store.secrets, "corp") == "s3cret-value"

        await sign_in_through_the_callback(user, "corp", base)
        seen = await stats(base)
        assert seen.get("register", 0) == 0 and seen["token:authorization_code"] == 1
        await user.should_not_see("s3cret-value")


async def test_without_a_client_id_the_sign_in_says_so_and_one_given_later_signs_in(user: User):
    async with auth_server("oauth", "--no-registration", "console-id") as base:
        await user.open("/settings")
        await add_http(user, "corp", f"{base}/mcp")
        await user.should_see(marker="mcp-sign-in-corp", retries=WAIT)
        user.find(marker="mcp-sign-in-corp").click()
        await user.should_see("does not let SeqDesk register itself to sign in", retries=WAIT)
        await user.should_see("give its Client ID here")

        user.find(marker="mcp-change-client-corp").click()
        await user.should_see(marker="mcp-edit-client-id")
        only(user, "mcp-edit-client-secret").value = "a-secret"  # a secret without its Client ID
        user.find(marker="mcp-save-client").click()
        await user.should_see("A Client secret needs the Client ID it belongs to.")
        only(user, "mcp-edit-client-id").value = "console\tid"
        only(user, "mcp-edit-client-secret").value = ""
        user.find(marker="mcp-save-client").click()
        await user.should_see("Client ID: it has a control character in it")
        assert (await mcp_store().list())[0].oauth_client_id is None  # nothing saved

        only(user, "mcp-edit-client-id").value = "console-id"
        user.find(marker="mcp-save-client").click()
        await user.should_see("corp: sign-in client changed; sign in again", retries=50)
        await user.should_see("and no Client secret")
        await user.should_see(marker="mcp-sign-in-corp", retries=WAIT)
        await sign_in_through_the_callback(user, "corp", base)
        assert (await stats(base)).get("register", 0) == 0


async def test_a_kept_secret_is_never_shown_and_can_be_forgotten(user: User):
    await user.open("/settings")
    await add_http(user, "corp", "http://127.0.0.1:9/mcp", client_id="console-id", secret="s3cret-value")
    await user.should_see("and a Client secret", retries=50)
    store = mcp_store()
    api = await user.http_client.get("/api/mcp/servers/corp")  # the app's own API says the same, no secret
    assert api.status_code == 200, api.text
    assert api.json()["oauth_client_id"] == "console-id" and api.json()["oauth_client_secret_set"] is True
    assert "s3cret-value" not in api.text
    user.find(marker="mcp-change-client-corp").click()
    await user.should_see("A Client secret is kept. Leave the field empty to keep it.")
    assert only(user, "mcp-edit-client-secret").value in ("", None)  # never filled in with the secret
    user.find(marker="mcp-save-client").click()  # nothing typed: the secret stays
    await user.should_not_see(marker="mcp-edit-client-id", retries=50)
    assert client_secret(store.secrets, "corp") == "s3cret-value"

    user.find(marker="mcp-change-client-corp").click()
    only(user, "mcp-forget-client-secret").value = True
    user.find(marker="mcp-save-client").click()
    await user.should_see("and no Client secret", retries=50)
    assert client_secret(store.secrets, "corp") is None
    (config,) = await store.list()
    assert config.oauth_client_id == "console-id"


async def test_the_sign_in_client_fields_and_dialog_are_in_chinese(user: User, chinese: None):
    words = {"corp", "console-id"}  # data
    store = mcp_store()
    await store.save(McpServerConfig.model_validate({"name": "corp", "transport": "http",
                                                     "url": "https://corp.example/mcp",
                                                     "oauth_client_id": "console-id"}))
    await user.open("/settings")
    await user.should_see(marker="mcp-client-corp")
    await user.should_see("登录时使用客户端 ID")
    only(user, "mcp-transport").value = "http"
    await user.should_see("客户端 ID（可选）")
    only(user, "mcp-name").value = "other"
    only(user, "mcp-url").value = "https://other.example/mcp"
    only(user, "mcp-client-secret").value = "a-secret"
    user.find(marker="mcp-add").click()
    await user.should_see("填写客户端密钥时，也要填写它所属的客户端 ID。")
    problems = screen_problems(user.current_layout, words)
    assert not problems, "\n".join(problems)

    user.find(marker="mcp-change-client-corp").click()
    await user.should_see(marker="mcp-edit-client-id")
    only(user, "mcp-edit-client-id").value = "x\ty"
    user.find(marker="mcp-save-client").click()
    await user.should_see("客户端 ID：含有控制字符（例如换行或制表符）")
    problems = screen_problems(user.current_layout, words)
    assert not problems, "\n".join(problems)
