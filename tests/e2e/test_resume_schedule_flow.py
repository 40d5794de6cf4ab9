"""Resume and schedules in the real app (a subprocess on a fresh data folder) with headless Chromium.

A failed run is resumed from its page: the new attempt keeps the first group, asks again for the
step that failed, and succeeds. A real 10-second schedule starts its run on its own, and the
Sequences page shows it with its last result. Screenshots, light and dark, go to build/screenshots/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 20_000


def approve_pending(app: Any) -> bool:
    status, pending = app.api("GET", "/api/interactions?status=pending")
    for item in pending if status == 200 else []:
        app.api("POST", f"/api/interactions/{item['interaction_id']}/respond",
                {"kind": "approval", "decision": "approved"})
    return bool(pending)


def both_themes(page: Any, screenshot: Any, name: str) -> None:
    screenshot(page, f"{name}-light.png")
    page.get_by_role("button", name="Dark mode").click()
    page.wait_for_function("document.body.classList.contains('body--dark')")
    screenshot(page, f"{name}-dark.png")
    page.get_by_role("button", name="Dark mode").click()
    page.wait_for_function("!document.body.classList.contains('body--dark')")


def test_a_failed_run_is_resumed_from_its_page_and_keeps_what_succeeded(seqdesk_app: Any, page: Any,
                                                                        screenshot: Any, tmp_path: Path):
    flag = tmp_path / "flag"
    step = json.dumps({"tool": "cmd_run", "args": {"command": f"test -f '{flag}' && echo found"}, "as": "seen"})
    doc = {"name": "check-flag", "description": "", "groups": [
        {"name": "note-time", "out": {"at": "string"},
         "tools": json.dumps({"tool": "echo", "args": {"value": "now"}, "as": "at"}) + " ;"},
        {"name": "look-for-flag", "in": {"at": "string"}, "out": {"seen": "string"}, "tools": step + " ;"}]}
    status, body = seqdesk_app.api("POST", "/api/sequences", doc)
    assert status in (200, 201), body
    _, started = seqdesk_app.api("POST", "/api/runs", {"sequence": "check-flag", "args": {}})
    run_id = started["run_id"]
    wait_until_sync(lambda: approve_pending(seqdesk_app))
    wait_until_sync(lambda: seqdesk_app.api("GET", f"/api/runs/{run_id}")[1]["status"] == "failed")

    page.goto(f"{seqdesk_app.base_url}/runs")
    expect(page.get_by_role("button", name="Resume this run")).to_be_visible(timeout=WAIT_MS)
    both_themes(page, screenshot, "runs-resume")

    flag.touch()
    page.goto(f"{seqdesk_app.base_url}/runs/{run_id}")
    expect(page.get_by_role("button", name="Resume", exact=True)).to_be_visible(timeout=WAIT_MS)
    both_themes(page, screenshot, "run-record-resume")
    page.get_by_role("button", name="Resume", exact=True).click()
    expect(page).to_have_url(re.compile(r"/run/[0-9a-f]+$"), timeout=WAIT_MS)
    new_id = page.url.rsplit("/", 1)[1]
    wait_until_sync(lambda: approve_pending(seqdesk_app))
    expect(page.get_by_text("Attempt 2: resumes")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("· kept what had succeeded: the group note-time")).to_be_visible(timeout=WAIT_MS)
    record = wait_until_sync(
        lambda: (r := seqdesk_app.api("GET", f"/api/runs/{new_id}")[1])["status"] != "running" and r)
    assert record["status"] == "succeeded" and record["outputs"] == {"at": "now", "seen": "found"}
    assert record["groups"][0]["reused_from"] == run_id
    page.reload()
    expect(page.get_by_text("Finished · 1 of 2 tools succeeded").or_(
        page.get_by_text("Finished"))).to_be_visible(timeout=WAIT_MS)
    both_themes(page, screenshot, "run-resumed")


def test_a_real_ten_second_schedule_runs_on_its_own_and_the_sequences_page_shows_it(seqdesk_app: Any, page: Any,
                                                                                   screenshot: Any):
    doc = {"name": "greet-on-time", "description": "", "groups": [
        {"name": "greet-on-time-g", "in": {"who": "string"}, "out": {"said": "string"},
         "tools": json.dumps({"tool": "echo", "args": {"value": "hi $args.who"}, "as": "said"}) + " ;"}]}
    assert seqdesk_app.api("POST", "/api/sequences", doc)[0] in (200, 201)
    status, made = seqdesk_app.api("POST", "/api/schedules",
                                   {"sequence": "greet-on-time", "args": {"who": "Ada"}, "every": "10s"})
    assert status == 201, made
    bad_status, bad = seqdesk_app.api("POST", "/api/schedules",
                                      {"sequence": "greet-on-time", "args": {"who": "Ada"}, "cron": "61 * * * *"})
    assert bad_status == 422 and "cron" in bad["fields"]
    status, _ = seqdesk_app.api("POST", "/api/schedules",
                                {"sequence": "greet-on-time", "args": {"who": "Bo"}, "cron": "0 9 * * 1-5"})
    assert status == 201

    def scheduled_run() -> Any:
        _, runs = seqdesk_app.api("GET", "/api/runs?sequence=greet-on-time")
        return next((r for r in runs if r.get("schedule_id") == made["schedule_id"] and r["status"] != "running"),
                    None)

    record = wait_until_sync(scheduled_run, timeout=30)
    assert record["status"] == "succeeded" and record["outputs"] == {"said": "hi Ada"}
    assert record["note"] == "started by a schedule (every 10s)"
    seqdesk_app.api("POST", f"/api/schedules/{made['schedule_id']}/pause", {"paused": True})

    page.goto(seqdesk_app.base_url + "/")
    expect(page.get_by_text("every 10s")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Paused", exact=True)).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_role("link", name="Succeeded")).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Add a schedule").click()
    expect(page.get_by_text("How often")).to_be_visible(timeout=WAIT_MS)
    both_themes(page, screenshot, "schedules")
