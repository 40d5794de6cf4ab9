"""A person adds a real MCP server (`mcp-server-time`) in Settings, sees it connect and list its tools,
finds them in the editor's tool list, and removes it again: the tools leave the list.

Settings' screenshot for the README (`settings.png`) is taken here, with the server connected (into
build/screenshots/ unless `SEQDESK_SCREENSHOTS` says otherwise).
"""

from __future__ import annotations

import sys
from importlib.util import find_spec
from typing import Any

import pytest
from support.browser import open_palette, settled

expect = pytest.importorskip("playwright.sync_api").expect
# found, not imported: importing the server took seconds of every worker's collection
pytestmark = pytest.mark.skipif(find_spec("mcp_server_time") is None, reason="mcp-server-time is not installed")

WAIT_MS = 20_000


def test_an_mcp_server_connects_its_tools_reach_the_palette_and_leave_with_it(seqdesk_app: Any, page: Any,
                                                                            screenshot: Any):
    page.goto(f"{seqdesk_app.base_url}/settings")
    settled(page, WAIT_MS)
    page.get_by_text("Add a server").click()
    page.get_by_label("Name (short, e.g. time)").fill("time")
    page.get_by_label("Command (e.g. uvx mcp-server-time)").fill(f"{sys.executable} -m mcp_server_time")
    settled(page, WAIT_MS)  # the section may still be sliding open: a click now can land beside the button
    page.get_by_role("button", name="Add server").click()
    expect(page.get_by_text("Connected · 2 tools")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("time.get_current_time")).to_be_visible()
    trust = page.get_by_role("switch", name="Believe this server when it says a tool only reads")
    expect(trust).to_be_visible()
    expect(page.get_by_text("Off: every one of its tools asks before it runs.", exact=True)).to_be_visible()
    page.mouse.move(0, 0)
    expect(page.locator(".q-notification")).to_have_count(0, timeout=WAIT_MS)
    screenshot(page, "settings.png")

    dialog = open_palette(seqdesk_app.base_url, page, "time")
    expect(dialog.get_by_text("time.get_current_time", exact=True)).to_be_visible(timeout=WAIT_MS)
    expect(dialog.get_by_text("from the server time").first).to_be_visible()

    page.goto(f"{seqdesk_app.base_url}/settings")
    page.get_by_role("button", name="Remove time").click()
    page.get_by_role("button", name="Remove", exact=True).click()
    expect(page.get_by_text("Removed time")).to_be_visible(timeout=WAIT_MS)
    dialog = open_palette(seqdesk_app.base_url, page, "time")
    expect(dialog.get_by_text("No tool matches.")).to_be_visible(timeout=WAIT_MS)
