"""A person adds MCP servers at web addresses in Settings and signs in to one, in a real browser.

The servers are real processes on loopback (`tests/mcp/auth_server.py`): one protected by OAuth
with the SDK's own server-side auth, showing a consent page with an "Allow" button; one that needs
an API key header. Headless Chromium clicks Sign in, lands on the server's consent page, allows,
comes back to the app's `/oauth/callback` and then to Settings, where the server is connected.
Neither the token nor the header's value is in `mcp-servers.json`.

Screenshots of the MCP section (light and dark, before and after signing in) go to
build/screenshots/ (or `SEQDESK_SCREENSHOTS`).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support.app import free_port
from support.browser import settled
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 20_000
AUTH_SERVER = Path(__file__).parents[1] / "mcp" / "auth_server.py"


@contextmanager
def auth_server(*args: str) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.Popen([sys.executable, str(AUTH_SERVER), args[0], str(port), *args[1:]], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"the test server ended ({proc.returncode}) before it answered")
            try:
                with urllib.request.urlopen(f"{base}/stats", timeout=1):
                    return True
            except OSError:
                return False

        wait_until_sync(up, "the test server to answer", timeout=30, every=0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def add_http_server(page: Any, name: str, url: str, headers: str = "", picture: Path | None = None) -> None:
    settled(page, WAIT_MS)
    page.get_by_text("Add a server").click()
    page.get_by_label("Name (short, e.g. time)").fill(name)
    settled(page, WAIT_MS)  # still sliding open, a click on "A web address" could miss it (seen in CI)
    page.get_by_text("A web address", exact=True).click()
    expect(page.get_by_label("URL (http:// or https://)")).to_be_visible(timeout=WAIT_MS)
    if picture is not None:
        page.locator(".q-expansion-item").filter(has_text="Add a server").screenshot(path=str(picture),
                                                                                   animations="disabled")
    page.get_by_label("URL (http:// or https://)").fill(url)
    if headers:
        page.get_by_label("Headers, one Name: value per line (optional, e.g. an API key)").fill(headers)
    settled(page, WAIT_MS)
    page.get_by_role("button", name="Add server").click()
    expect(page.get_by_text(f"Added {name}")).to_be_visible(timeout=WAIT_MS)
    # Adding closes the form: wait until it is closed, or the next click on its header could land
    # before the close and the close would then shut it again.
    expect(page.get_by_label("Name (short, e.g. time)")).to_be_hidden(timeout=WAIT_MS)


def mcp_card(page: Any) -> Any:
    return page.locator(".q-card").filter(has_text="MCP servers")


def quiet(page: Any) -> None:
    page.mouse.move(0, 0)
    expect(page.locator(".q-notification")).to_have_count(0, timeout=WAIT_MS)


def test_signing_in_to_an_oauth_server_in_the_browser_connects_it(seqdesk_app: Any, page: Any, screenshot: Any):
    with auth_server("oauth", "--consent") as oauth, auth_server("header", "X-Api-Key", "k-e2e-secret") as keyed:
        page.goto(f"{seqdesk_app.base_url}/settings")
        add_http_server(page, "keyed", f"{keyed}/mcp", headers="X-Api-Key: k-e2e-secret",
                        picture=screenshot_path("settings-mcp-add-web-address-light.png"))
        add_http_server(page, "guarded", f"{oauth}/mcp")
        card = mcp_card(page)
        expect(card.get_by_text("This server needs you to sign in")).to_be_visible(timeout=WAIT_MS)
        expect(card.get_by_text("Connected · 1 tool")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("k-e2e-secret")).to_have_count(0)
        quiet(page)
        page.get_by_role("button", name="Change headers of keyed").click()
        dialog = page.locator(".q-dialog .q-card")
        expect(dialog.get_by_label("Headers")).to_have_value("X-Api-Key: ")  # the name, never the value
        dialog.screenshot(path=str(screenshot_path("settings-mcp-headers-dialog-light.png")), animations="disabled")
        dialog.get_by_role("button", name="Cancel").click()
        expect(page.locator(".q-dialog")).to_have_count(0)
        card.screenshot(path=str(screenshot_path("settings-mcp-sign-in-light.png")), animations="disabled")
        dark(page, card, "settings-mcp-sign-in-dark.png")

        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{oauth}/consent?*", timeout=WAIT_MS)  # the server's own page
        page.get_by_role("button", name="Allow").click()
        expect(page.get_by_text("Signed in to guarded")).to_be_visible(timeout=WAIT_MS)
        assert page.url.startswith(f"{seqdesk_app.base_url}/oauth/callback?")
        page.wait_for_url(f"{seqdesk_app.base_url}/settings", timeout=WAIT_MS)  # and back
        card = mcp_card(page)
        expect(card.get_by_text("Connected · 1 tool")).to_have_count(2, timeout=WAIT_MS)
        expect(card.get_by_text("guarded.whoami")).to_be_visible()
        quiet(page)
        card.screenshot(path=str(screenshot_path("settings-mcp-light.png")), animations="disabled")
        dark(page, card, "settings-mcp-dark.png")

    settings = (seqdesk_app.data_dir / "mcp-servers.json").read_text(encoding="utf-8")
    assert "k-e2e-secret" not in settings and "access_" not in settings and "refresh_" not in settings
    assert json.loads(settings)["servers"][1]["headers"] == ["X-Api-Key"]
    secrets = seqdesk_app.data_dir / "mcp-secrets.json"  # no keyring on this machine: the private file
    assert stat.S_IMODE(os.stat(secrets).st_mode) == 0o600
    assert "k-e2e-secret" in secrets.read_text(encoding="utf-8")


def dark(page: Any, card: Any, name: str) -> None:
    """The same card in dark mode, then light again."""
    page.get_by_role("button", name="Dark mode").click()
    page.wait_for_function("document.body.classList.contains('body--dark')")
    card.screenshot(path=str(screenshot_path(name)), animations="disabled")
    page.get_by_role("button", name="Dark mode").click()
    page.wait_for_function("!document.body.classList.contains('body--dark')")


def screenshot_path(name: str) -> Path:
    from support.browser import screenshot_dir

    return screenshot_dir() / name
