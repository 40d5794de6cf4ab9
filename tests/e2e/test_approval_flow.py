"""A person runs a sequence with a shell step, approves (or denies) it in the inbox, and sees the outcome.

The real app runs in a subprocess on a fresh data folder; headless Chromium clicks through it.
Screenshots of the run panel (waiting, finished) and the inbox go to `build/screenshots/` (into
assets/screenshots/, for the README, with `SEQDESK_SCREENSHOTS=assets/screenshots`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000


def shell_sequence(name: str, command: str) -> dict[str, Any]:
    call = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    return {"name": name, "description": "says hello from a shell",
            "groups": [{"name": f"{name}-say", "in": {}, "out": {"said": "string"}, "tools": json.dumps(call) + " ;"}]}


def start_from_run_panel(app: Any, page: Any, name: str) -> str:
    status, body = app.api("POST", "/api/sequences", shell_sequence(name, "echo hello-e2e"))
    assert status in (200, 201), body
    page.goto(f"{app.base_url}/run?sequence={name}")
    page.get_by_role("main").get_by_role("button", name="Run", exact=True).click()
    expect(page).to_have_url(re.compile(r"/run/[0-9a-f]+$"), timeout=WAIT_MS)
    expect(page.get_by_text("1 request needs you")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Waiting for you").first).to_be_visible(timeout=WAIT_MS)
    return page.url


def test_approving_in_the_inbox_lets_the_command_run_and_the_run_succeed(seqdesk_app: Any, page: Any, screenshot: Any):
    run_url = start_from_run_panel(seqdesk_app, page, "e2e-approve")
    screenshot(page, "run-panel-waiting.png")

    page.get_by_role("link", name="Open in the inbox").first.click()
    expect(page).to_have_url(re.compile(r"/inbox/[0-9a-f]+$"), timeout=WAIT_MS)
    expect(page.get_by_text("echo hello-e2e").first).to_be_visible(timeout=WAIT_MS)
    run_once = page.get_by_role("button", name="Run once")
    expect(run_once).to_be_enabled(timeout=WAIT_MS)
    screenshot(page, "inbox.png")
    run_once.click()

    page.goto(run_url)
    expect(page.get_by_text("Finished · 1 of 1 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("hello-e2e", exact=True).first).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Show details of cmd_run").click()
    expect(page.get_by_text("Arguments as sent")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_role("link", name="Its request in the inbox")).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "run-panel.png")

    run_id = run_url.rsplit("/", 1)[1]
    status, record = seqdesk_app.api("GET", f"/api/runs/{run_id}")
    assert status == 200 and record["status"] == "succeeded"
    assert record["outputs"] == {"said": "hello-e2e"}

    page.goto(f"{seqdesk_app.base_url}/runs/{run_id}")
    expect(page.get_by_text("Requests it raised")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Approved").first).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "run-record.png")


def test_denying_in_the_inbox_fails_the_run_with_the_reason(seqdesk_app: Any, page: Any, screenshot: Any):
    run_url = start_from_run_panel(seqdesk_app, page, "e2e-deny")
    page.get_by_role("link", name="Open in the inbox").first.click()
    expect(page).to_have_url(re.compile(r"/inbox/[0-9a-f]+$"), timeout=WAIT_MS)
    deny = page.get_by_role("button", name="Don't run")
    expect(deny).to_be_enabled(timeout=WAIT_MS)
    deny.click()

    page.goto(run_url)
    expect(page.get_by_text("Finished · 0 of 1 tools succeeded · 1 denied by you")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Denied by you").first).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "run-panel-denied.png")


def test_run_history_and_record_pages_render_in_a_real_browser(seqdesk_app: Any, page: Any, screenshot: Any):
    name = "e2e-history"
    parallel = " ".join(json.dumps({"tool": "sleep", "args": {"seconds": s}}) + " ;" for s in (0.2, 0.4, 0.3))
    doc = {"name": name, "groups": [
        {"name": "e2e-wait", "in": {}, "out": {}, "tools": parallel},
        {"name": "e2e-greet", "in": {"who": "string"}, "out": {"greeting": "string"},
         "tools": json.dumps({"tool": "echo", "args": {"value": "hi $args.who"}, "as": "greeting"}) + " ;"}]}
    assert seqdesk_app.api("POST", "/api/sequences", doc)[0] in (200, 201)
    status, started = seqdesk_app.api("POST", "/api/runs", {"sequence": name, "args": {"who": "Ada"}})
    assert status == 202, started
    page.goto(f"{seqdesk_app.base_url}/run/{started['run_id']}")
    expect(page.get_by_text("Finished · 4 of 4 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "run-panel-parallel.png")
    page.goto(f"{seqdesk_app.base_url}/runs")
    expect(page.get_by_text(name).first).to_be_visible(timeout=WAIT_MS)
    screenshot(page, "runs.png")
    page.get_by_text(name).first.click()
    expect(page).to_have_url(re.compile(r"/runs/[0-9a-f]+$"), timeout=WAIT_MS)
    expect(page.get_by_text("Requests it raised")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("This run asked nobody anything.")).to_be_visible(timeout=WAIT_MS)
    page.goto(f"{seqdesk_app.base_url}/settings")
    expect(page.get_by_text("Approvals")).to_be_visible(timeout=WAIT_MS)  # settings.png: test_mcp_settings_flow
