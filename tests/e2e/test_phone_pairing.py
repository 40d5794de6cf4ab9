"""Pairing a phone in real Chromium: the computer turns phone access on and shows a one-time code;
a second browser context, reaching the app over the network address like a phone on the Wi-Fi,
is refused until it pairs, pairs once, answers a request, and is refused again once forgotten.

The app runs with a token, so the test also shows the token is in neither the link nor the
phone's address bar. The network address is this machine's own (SEQDESK_LAN_ADDRESS): requests to
it come from a non-loopback address, as a phone's would.
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from support.app import ROOT, RunningApp, app_command, clean_env, free_port, wait_until_up
from support.waiting import wait_until_sync

from gui.phone.lan import lan_address

TOKEN = "e2e-token-for-the-phone-test-0123456789"
SHELL = {"name": "phone-approve", "description": "asks before it runs", "groups": [
    {"name": "say", "in": {}, "out": {"text": "string"},
     "tools": '{"tool": "cmd_run", "args": {"command": "echo from the phone"}, "as": "text"} ;'}]}


@pytest.fixture(scope="module")
def lan() -> str:
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    return address


@pytest.fixture(scope="module")
def app_with_token(tmp_path_factory: pytest.TempPathFactory, lan: str) -> Iterator[RunningApp]:
    folder = tmp_path_factory.mktemp("seqdesk-phone")
    port = free_port()
    env = clean_env(folder / "data") | {"SEQDESK_TOKEN": TOKEN, "SEQDESK_LAN_ADDRESS": lan}
    log = folder / "app.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(app_command(port), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_up(proc, f"http://127.0.0.1:{port}", log)
        yield RunningApp(f"http://127.0.0.1:{port}", folder / "data", log)
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def call(url: str, method: str = "GET", body: Any = None, token: str | None = TOKEN) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                     method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw or b"null")
        except ValueError:
            return exc.code, raw.decode("utf-8", "replace")


def test_a_phone_pairs_once_answers_a_request_and_is_forgotten(app_with_token, browser, lan, screenshot):
    base = app_with_token.base_url
    port = base.rsplit(":", 1)[1]
    phone_base = f"http://{lan}:{port}"
    assert call(base + "/api/sequences", "POST", SHELL)[0] in (200, 201)

    desktop_context = browser.new_context(viewport={"width": 1400, "height": 900})
    desktop = desktop_context.new_page()
    desktop.set_default_timeout(15_000)
    desktop.goto(base + "/login?next=/settings")
    desktop.fill("#token", TOKEN)
    desktop.click("button[type=submit]")
    desktop.wait_for_url("**/settings")
    desktop.get_by_text("Let paired phones on this network open SeqDesk").click()
    desktop.get_by_text(phone_base, exact=True).wait_for()

    # before pairing, the network address answers nothing but the "not paired" page
    phone_context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone = phone_context.new_page()
    phone.set_default_timeout(15_000)
    phone.goto(phone_base + "/inbox")
    phone.get_by_text("This phone is not paired").wait_for()
    assert call(phone_base + "/api/interactions", token=None)[0] == 401

    desktop.get_by_text("Pair a phone").click()
    shown = desktop.get_by_text(phone_base + "/pair/")
    shown.wait_for()
    link = shown.inner_text().strip()
    assert link.startswith(phone_base + "/pair/") and TOKEN not in link
    assert desktop.locator("img[src^='data:image/svg+xml']").count() == 1
    screenshot(desktop, "phone-pairing-desktop.png")

    status, run = call(base + "/api/runs", "POST", {"sequence": "phone-approve"})
    assert status == 202

    phone.goto(link)
    phone.get_by_text("Use SeqDesk on this phone?").wait_for()
    phone.get_by_role("button", name="Pair this phone").click()
    phone.wait_for_url(phone_base + "/inbox")
    assert "/pair/" not in phone.url and TOKEN not in phone.url
    cookie = next(c for c in phone_context.cookies() if c["name"] == "seqdesk_phone")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and TOKEN not in cookie["value"]
    phone.get_by_text("echo from the phone").first.wait_for()
    screenshot(phone, "phone-paired-inbox.png")
    phone.get_by_role("button", name="Run once").click()
    wait_until_sync(lambda: call(base + f"/api/runs/{run['run_id']}")[1]["status"] != "running",
                    "the run to finish after the phone approved it", timeout=15)
    assert call(base + f"/api/runs/{run['run_id']}")[1]["status"] == "succeeded"

    # the link works once: a replay (another phone, or the same one later) is refused
    stranger_context = browser.new_context()
    stranger = stranger_context.new_page()
    stranger.goto(link)
    stranger.get_by_text("This pairing code does not work any more").wait_for()
    stranger_context.close()

    # a phone is not the computer: it cannot make codes, switch access or redirect notices
    assert phone.evaluate("fetch('/api/phone').then(r => r.status)") == 403
    assert phone.evaluate("""fetch('/api/settings/notifications', {method: 'PUT',
        headers: {'Content-Type': 'application/json'}, body: '{"webhook_url": "https://evil.example/"}'})
        .then(r => r.status)""") == 403
    # nor add an MCP server (a program server runs a command), nor change one: its Settings only show them
    assert phone.evaluate("""fetch('/api/mcp/servers', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({name: 'evil', command: 'sh', args: ['-c', 'echo owned']})}).then(r => r.status)""") == 403
    assert call(base + "/api/mcp/servers")[1] == []
    phone.goto(phone_base + "/settings")
    phone.get_by_text("Servers are added and changed on the computer SeqDesk runs on.").wait_for()
    assert phone.get_by_text("Add a server").count() == 0

    desktop.reload()
    forget = desktop.get_by_role("button", name="Forget")
    forget.wait_for()
    forget.click()
    phone.get_by_text("This phone is not paired").wait_for()  # its open page reloads, refused
    assert call(base + "/api/phone")[1]["phones"] == []
    phone_context.close()
    desktop_context.close()
