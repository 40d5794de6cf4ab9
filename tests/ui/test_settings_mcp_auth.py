"""Settings, MCP servers at a web address: headers, the protocol choice, and signing in.

The servers are real (`tests/mcp/auth_server.py` on loopback). The person's browser is played by
the test: the Sign in button sends the page to the server's sign-in page (recorded here), the test
follows it like a browser (the test server consents at once) and comes back to the app's
`/oauth/callback` with what the server gave.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from nicegui.testing import User
from support.mcp_auth import auth_server, follow_sign_in, stats
from support.ui import WAIT, app_ctx, browser_of, mcp_store, only
from support.waiting import wait_until


async def add_http(user: User, name: str, url: str, headers: str = "", protocol: str = "auto") -> None:
    user.find(marker="mcp-name").type(name)
    only(user, "mcp-transport").value = "http"
    user.find(marker="mcp-url").type(url)
    if headers:
        only(user, "mcp-headers").value = headers
    only(user, "mcp-form-protocol").value = protocol
    user.find(marker="mcp-add").click()


async def test_a_server_with_a_header_connects_and_its_value_is_never_shown(user: User):
    async with auth_server("header", "X-Api-Key", "k-secret-123") as base:
        await user.open("/settings")
        await add_http(user, "keyed", f"{base}/mcp", headers="X-Api-Key: k-secret-123")
        await user.should_see(marker="mcp-keyed", retries=50)
        await user.should_see("Connected · 1 tool", retries=WAIT)
        await user.should_see(marker="mcp-protocol-version-keyed")
        await user.should_see("Sends the headers X-Api-Key")
        await user.should_not_see("k-secret-123")
        (config,) = await mcp_store().list()
        assert config.header_values() == {"X-Api-Key": "k-secret-123"}


async def test_a_header_line_that_is_not_name_colon_value_is_explained_without_echoing_it(user: User):
    await user.open("/settings")
    await add_http(user, "keyed", "http://127.0.0.1:9/mcp", headers="X-Api-Key k-secret-123")
    problem = await wait_until(lambda: only(user, "mcp-headers").error, "the headers' problem", timeout=5)
    assert problem.startswith("write Name: value on each line")  # at the field it is about
    assert "k-secret-123" not in problem  # the message never repeats a value
    assert await mcp_store().list() == []


async def test_the_protocol_can_be_chosen_when_adding_and_changed_later(user: User):
    await user.open("/settings")
    await add_http(user, "old", "http://127.0.0.1:9/mcp", protocol="legacy")
    await user.should_see(marker="mcp-old", retries=50)
    (config,) = await mcp_store().list()
    assert config.protocol == "legacy"
    only(user, "mcp-protocol-old").value = "auto"
    await user.should_see("old: talked to automatically now", retries=50)
    (config,) = await mcp_store().list()
    assert config.protocol == "auto"


async def test_a_server_that_refuses_asks_for_a_sign_in_and_is_not_retried(user: User):
    async with auth_server("refuse") as base:
        await user.open("/settings")
        await add_http(user, "locked", f"{base}/mcp")
        await user.should_see("This server needs you to sign in", retries=WAIT)
        await user.should_see(marker="mcp-sign-in-locked")
        await user.should_not_see("trying again in")
        asked = (await stats(base))["mcp"]
        user.find(marker="mcp-sign-in-locked").click()  # it offers no sign-in: said in words
        await user.should_see("Cannot sign in to locked", retries=WAIT)
        manager = app_ctx().runtime.mcp
        seen: list[str] = []
        tried_again = asyncio.Event()

        def watch(state: Any) -> None:  # one more attempt: connecting, then down again
            if state.name == "locked":
                seen.append(state.status)
                if seen[-2:] == ["connecting", "down"]:
                    tried_again.set()

        manager.on_change(watch)
        user.find(marker="mcp-retry-locked").click()
        await user.should_see("Trying locked again", retries=50)
        await asyncio.wait_for(tried_again.wait(), 15)
        assert manager.get("locked").state.needs_sign_in and (await stats(base))["mcp"] > asked


async def test_signing_in_through_the_callback_connects_the_server(user: User):
    async with auth_server("oauth") as base:
        await user.open("/settings")
        opened = browser_of(user)
        await add_http(user, "guarded", f"{base}/mcp")
        await user.should_see("This server needs you to sign in", retries=WAIT)
        user.find(marker="mcp-sign-in-guarded").click()
        url = await opened()
        assert url.startswith(f"{base}/authorize?")
        back = await follow_sign_in(url)
        assert back.startswith("http://test/oauth/callback?")  # to this app, at the address the page used

        forged = await user.http_client.get("/oauth/callback?state=forged&code=stolen")
        assert forged.status_code == 400 and "Not a sign-in SeqDesk started" in forged.text

        page = await user.http_client.get(back.removeprefix("http://test"))
        assert page.status_code == 200, page.text
        assert "Signed in to guarded" in page.text
        assert page.headers["cache-control"] == "no-store" and page.headers["referrer-policy"] == "no-referrer"
        await user.open("/settings")
        await user.should_see("Connected · 1 tool", retries=WAIT)
        again = await user.http_client.get(back.removeprefix("http://test"))  # a used link does nothing
        assert again.status_code == 400


async def test_a_refusal_from_the_sign_in_page_is_shown_escaped(user: User):
    async with auth_server("oauth") as base:
        await user.open("/settings")
        opened = browser_of(user)
        await add_http(user, "guarded", f"{base}/mcp")
        await user.should_see(marker="mcp-sign-in-guarded", retries=WAIT)
        user.find(marker="mcp-sign-in-guarded").click()
        state = httpx.URL(await opened()).params["state"]
        page = await user.http_client.get("/oauth/callback", params={
            "state": state, "error": "access_denied", "error_description": "<script>alert(1)</script>"})
        assert page.status_code == 400
        assert "Not signed in to guarded" in page.text
        assert "<script>alert(1)</script>" not in page.text and "&lt;script&gt;" in page.text
        conn = app_ctx().runtime.mcp.get("guarded")
        assert conn.state.needs_sign_in  # nothing changed


async def test_a_wrong_key_is_changed_in_settings_and_the_server_connects(user: User):
    async with auth_server("header", "X-Api-Key", "k-right") as base:
        await user.open("/settings")
        await add_http(user, "keyed", f"{base}/mcp", headers="X-Api-Key: k-wrong")
        await user.should_see("This server needs you to sign in", retries=WAIT)
        user.find(marker="mcp-change-headers-keyed").click()
        await user.should_see(marker="mcp-edit-headers")
        assert only(user, "mcp-edit-headers").value == "X-Api-Key: "  # names only, never a value
        only(user, "mcp-edit-headers").value = "X-Api-Key"
        user.find(marker="mcp-save-headers").click()
        await user.should_see("Headers: line 1 is not Name: value")
        only(user, "mcp-edit-headers").value = "X-Api-Key: k-right"
        user.find(marker="mcp-save-headers").click()
        await user.should_see("keyed: headers changed", retries=50)
        await user.should_see("Connected · 1 tool", retries=WAIT)
        (config,) = await mcp_store().list()
        assert config.header_values() == {"X-Api-Key": "k-right"}

        user.find(marker="mcp-change-headers-keyed").click()  # an empty value keeps the one it has
        only(user, "mcp-edit-headers").value = "X-Api-Key:\nX-Team: blue"
        user.find(marker="mcp-save-headers").click()
        await user.should_not_see(marker="mcp-edit-headers", retries=50)  # saved: the dialog is gone
        (config,) = await mcp_store().list()
        assert config.header_values() == {"X-Api-Key": "k-right", "X-Team": "blue"}
