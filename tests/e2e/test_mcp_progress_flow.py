"""In a real browser: a long MCP tool's card shows its progress while it runs, and a result's picture,
sound and links are shown; the app runs as a subprocess with the real `live_server.py` configured in
its data folder. Screenshots (light and dark) go to build/screenshots/ (or `SEQDESK_SCREENSHOTS`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.app import ROOT, RunningApp, running_app
from support.browser import open_palette
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

LIVE = str(ROOT / "tests" / "mcp" / "live_server.py")
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    folder = tmp_path_factory.mktemp("seqdesk-live")
    data_dir = folder / "data"
    data_dir.mkdir()
    (data_dir / "mcp-servers.json").write_text(json.dumps({"servers": [
        {"name": "live", "command": sys.executable, "args": [LIVE], "trusted": True}]}), encoding="utf-8")
    with running_app(folder, data_dir) as app:
        yield app


def save(app: RunningApp, name: str, tool: str, args: dict, out: str) -> None:
    step = {"tool": tool, "args": args, "as": "got"}
    status, body = app.api("POST", "/api/sequences", {"name": name, "groups": [
        {"name": f"{name}-g", "in": {}, "out": {"got": out}, "tools": json.dumps(step) + " ;"}]})
    assert status in (200, 201), body


def start_and_approve(app: RunningApp, name: str) -> str:
    """Start a run, answer its one approval as the person would; its run id."""
    status, started = app.api("POST", "/api/runs", {"sequence": name})
    assert status in (200, 201, 202), started
    run_id = started["run_id"]
    pending = wait_until_sync(lambda: app.api("GET", f"/api/interactions?status=pending&run_id={run_id}")[1],
                              f"run {run_id} to ask for its approval", timeout=20)
    status, body = app.api("POST", f"/api/interactions/{pending[0]['interaction_id']}/respond",
                           {"kind": "approval", "decision": "approved"})
    assert status == 200, body
    return run_id


def test_progress_on_the_card_then_pictures_sounds_and_links(live_app: RunningApp, page: Any, screenshot: Any):
    def settled() -> dict[str, Any] | None:  # the app answers before its MCP server has connected
        listing: dict[str, Any] = live_app.api("GET", "/api/tools")[1]
        return listing if listing["servers"][0]["status"] != "connecting" else None

    listing = wait_until_sync(settled, "the MCP server to be connected or down, not connecting", timeout=20)
    assert listing["servers"][0]["status"] == "connected", listing["servers"]
    assert "live.count" in {t["name"] for t in listing["tools"]}
    save(live_app, "counting", "live.count", {"steps": 4, "hold": True}, "string")
    save(live_app, "release", "live.release", {}, "string")
    save(live_app, "media", "live.picture", {}, "object")
    run_id = start_and_approve(live_app, "counting")
    page.goto(f"{live_app.base_url}/run/{run_id}")
    expect(page.get_by_text("2 of 4 · step 2 of 4")).to_be_visible(timeout=WAIT_MS)
    bar = page.locator(".tool-progress .q-linear-progress")
    expect(bar).to_be_visible()
    page.locator("[aria-label='Show details of live.count']").click()
    expect(page.get_by_text("waiting to be released").first).to_be_visible(timeout=WAIT_MS)
    page.wait_for_timeout(2500)  # Quasar animates the bar (~2 s): let it settle for the picture
    screenshot(page, "mcp-progress-light.png")
    page.get_by_role("button", name="Dark mode").click()
    page.mouse.move(0, 400)  # no tooltip over the picture
    page.wait_for_timeout(500)  # the theme's transition, for the picture only
    screenshot(page, "mcp-progress-dark.png")
    page.get_by_role("button", name="Dark mode").click()

    start_and_approve(live_app, "release")
    expect(page.get_by_text("counted to 4").first).to_be_visible(timeout=WAIT_MS)
    expect(bar).to_be_hidden()

    media_id = start_and_approve(live_app, "media")
    page.goto(f"{live_app.base_url}/run/{media_id}")
    expect(page.get_by_text("(1 picture, 1 sound, 2 links, 1 file)")).to_be_visible(timeout=WAIT_MS)
    page.locator("[aria-label='Show details of live.picture']").click()
    image = page.locator("img[alt='A picture the tool gave back']").last  # in Results and in the details
    expect(image).to_be_visible(timeout=WAIT_MS)
    assert page.evaluate("(img) => img.naturalWidth", image.element_handle()) == 32
    expect(page.locator("audio")).to_have_count(2)
    link = page.get_by_role("link", name="The monthly report").last
    expect(link).to_have_attribute("href", "https://example.com/report")
    expect(link).to_have_attribute("target", "_blank")
    expect(page.get_by_role("link", name="hello note")).to_have_count(0)  # note:// is not a web address
    screenshot(page, "mcp-media-light.png")
    page.get_by_role("button", name="Dark mode").click()
    page.mouse.move(0, 400)  # no tooltip over the picture
    page.wait_for_timeout(500)  # the theme's transition, for the picture only
    screenshot(page, "mcp-media-dark.png")


def test_a_servers_prompt_is_a_text_template_in_the_palette(live_app: RunningApp, page: Any, screenshot: Any):
    dialog = open_palette(live_app.base_url, page, "live")
    expect(dialog.get_by_text("live.prompt/summarize", exact=True)).to_be_visible(timeout=WAIT_MS)
    expect(dialog.get_by_text("a text template from the server live: its text feeds a later step")).to_be_visible()
    page.wait_for_timeout(500)  # the dialog's opening animation, for the picture only
    screenshot(page, "mcp-palette-prompt-light.png")
