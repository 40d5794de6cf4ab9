"""The run panel in a real browser: a request answered in place in the side panel, a timeline bar
clicked to select its tool (ECharts' own click), a short run id in the address, and the dark theme."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000


def save(app: Any, doc: dict[str, Any]) -> None:
    status, body = app.api("POST", "/api/sequences", doc)
    assert status in (200, 201), body


def start(app: Any, name: str) -> str:
    status, body = app.api("POST", "/api/runs", {"sequence": name})
    assert status == 202, body
    return str(body["run_id"])


def test_a_request_is_answered_in_place_from_a_short_run_address(seqdesk_app: Any, page: Any, screenshot: Any):
    call = {"tool": "cmd_run", "args": {"command": "echo answered-in-place"}, "as": "said"}
    save(seqdesk_app, {"name": "e2e-inplace", "groups": [
        {"name": "e2e-inplace-g", "out": {"said": "string"}, "tools": json.dumps(call) + " ;"}]})
    run_id = start(seqdesk_app, "e2e-inplace")
    page.goto(f"{seqdesk_app.base_url}/run/{run_id[:8]}")
    expect(page).to_have_url(re.compile(f"/run/{run_id}$"), timeout=WAIT_MS)  # the address names the whole id
    expect(page.get_by_text("Run: echo answered-in-place")).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Answer here").first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Wants to run")).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "run-panel-answer-in-place.png")
    dialog.get_by_role("button", name="Run once").click()
    expect(page.get_by_text("Finished · 1 of 1 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    status, record = seqdesk_app.api("GET", f"/api/runs/{run_id[:8]}")
    assert status == 200 and record["status"] == "succeeded" and record["outputs"]["said"] == "answered-in-place"


def test_clicking_a_timeline_bar_selects_its_tool(seqdesk_app: Any, page: Any):
    tools = " ".join(json.dumps({"tool": "sleep", "args": {"seconds": s}}) + " ;" for s in (0.2, 0.5))
    save(seqdesk_app, {"name": "e2e-bars", "groups": [{"name": "e2e-bars-g", "tools": tools}]})
    run_id = start(seqdesk_app, "e2e-bars")
    page.goto(f"{seqdesk_app.base_url}/run/{run_id}")
    expect(page.get_by_text("Finished · 2 of 2 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    bars = page.locator(".seqdesk-timeline path")
    boxes = [b for b in (bars.nth(i).bounding_box() for i in range(bars.count())) if b and b["height"] >= 10]
    lowest = max(boxes, key=lambda b: b["y"])  # the last tool's row
    page.mouse.click(lowest["x"] + lowest["width"] / 2, lowest["y"] + lowest["height"] / 2)
    expect(page.get_by_text("Arguments as sent")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("div").filter(has_text=re.compile(r"^2\. sleep$"))).to_be_visible()


def test_dark_theme_text_is_readable(seqdesk_app: Any, page: Any, screenshot: Any):
    save(seqdesk_app, {"name": "e2e-dark", "groups": [{"name": "e2e-dark-g", "tools": json.dumps(
        {"tool": "cmd_run", "args": {"command": "true"}}) + " ;"}]})
    run_id = start(seqdesk_app, "e2e-dark")
    page.goto(f"{seqdesk_app.base_url}/run/{run_id}")
    expect(page.get_by_text("1 request needs you")).to_be_visible(timeout=WAIT_MS)
    page.get_by_label("Dark mode").click()
    expect(page.locator("body.body--dark")).to_have_count(1, timeout=WAIT_MS)
    colour = page.get_by_role("button", name="Stop run").evaluate("b => getComputedStyle(b).color")
    assert colour == "rgb(255, 138, 128)"  # Quasar's #c10015 reads at about 3:1 on the dark cards
    screenshot(page, "run-panel-dark.png")
    page.get_by_role("button", name="Stop run").click()
    page.get_by_role("dialog").get_by_role("button", name="Stop run").click()
    expect(page.get_by_text("Stopped by you").first).to_be_visible(timeout=WAIT_MS)
