"""A window served by one team server follows what another does (two real `seqdesk serve` on one real
PostgreSQL, headless Chromium on the second, signed in there as an approver; the admin starts the run): its inbox badge
counts the request a run in the first asks, and its run page follows that run's steps to the end when
the first is answered."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.team import APPROVER, PASSWORD, team_servers
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect
pytestmark = pytest.mark.postgres
WAIT_MS = 30_000
ASKS = {"name": "team-asks", "description": "", "groups": [{
    "name": "say", "in": {}, "out": {"said": "string"},
    "tools": json.dumps({"tool": "cmd_run", "args": {"command": "echo from-a"}, "as": "said"}) + " ;"}]}


@pytest.fixture
def two(tmp_path: Any, postgres_server: Any, seqdesk_template: str) -> Any:
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path, url, 2) as servers:
            yield servers
    finally:
        postgres_server.drop_database(url)


def test_a_window_on_one_server_follows_a_run_and_its_request_in_another(two: Any, page: Any, screenshot: Any):
    a, b = two
    a.ok("POST", "/api/sequences", ASKS)
    page.goto(f"{b.base_url}/inbox")
    assert page.url.startswith(f"{b.base_url}/login")  # people sign in on a team's server
    page.fill("#name", APPROVER)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{b.base_url}/inbox")
    badge = page.get_by_role("button", name="Inbox").locator(".q-badge")
    expect(badge).to_be_hidden(timeout=WAIT_MS)  # nothing asked yet

    run_id = a.ok("POST", "/api/runs", {"sequence": "team-asks"})["run_id"]
    expect(badge).to_have_text("1", timeout=WAIT_MS)  # asked in A, counted in B's window
    expect(page.get_by_text("echo from-a").first).to_be_visible(timeout=WAIT_MS)

    page.goto(f"{b.base_url}/run/{run_id}")
    expect(page.get_by_text("Waiting for you").first).to_be_visible(timeout=WAIT_MS)
    [request] = wait_until_sync(lambda: a.ok("GET", f"/api/interactions?status=pending&run_id={run_id}"),
                                "the request in A's inbox")
    a.approve(request["request"]["interaction_id"])
    expect(page.get_by_text("Finished · 1 of 1 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("from-a", exact=True).first).to_be_visible(timeout=WAIT_MS)
    expect(badge).to_be_hidden(timeout=WAIT_MS)
    screenshot(page, "team-run-followed.png")
