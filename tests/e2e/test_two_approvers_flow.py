"""Two people approve a step that needs two (issue 26), on a real team server: `seqdesk serve` on a
real PostgreSQL database, its people added with `seqdesk people add` (a password read from standard
input) and given personal tokens with `seqdesk people token`. Each browser signs in on /login: ana at a
desktop-sized window, li.wei on a phone-sized one. bo starts the run with his personal token and may not
approve its step himself; ana may not approve twice; the run goes on only after the second approval, and
the record of decisions (`seqdesk audit export`) names both. Then sam answers several requests at once.

Screenshots go where `SEQDESK_SCREENSHOTS` says (tests/support/browser.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.cli import seqdesk
from support.team import PASSWORD, TeamServer, team_servers
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect
pytestmark = pytest.mark.postgres

WAIT_MS = 20_000
DESKTOP = {"viewport": {"width": 1280, "height": 860}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
# Two on call, a lead who approves, and bo, who starts runs (and is on call too: only starting the run
# keeps him from approving its step).
PEOPLE = {"ana": ("approver", "oncall"), "li.wei": ("approver", "oncall"), "sam": ("approver", "lead"),
          "bo": ("runner", "author", "approver", "oncall")}
STEP = {"tool": "cmd_run", "args": {"command": "echo released"}, "approvers": ["role:oncall"], "required": 2,
        "as": "said"}
SEQUENCE = {"name": "release", "description": "needs two on-call people",
            "groups": [{"name": "release-go", "in": {}, "out": {"said": "string"}, "tools": json.dumps(STEP) + " ;"}]}


@dataclass
class Team:
    server: TeamServer
    url: str  # the database's
    folder: Path
    tokens: dict[str, str]  # person -> a personal token of theirs

    def api_as(self, name: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = httpx.request(method, self.server.base_url + path, json=body, timeout=20,
                               headers={"Authorization": f"Bearer {self.tokens[name]}"})
        return answer.status_code, (answer.json() if answer.content else None)

    def run_ended(self, run_id: str) -> Any:
        status, found = self.api_as("bo", "GET", f"/api/runs/{run_id}")
        return found if status == 200 and found["status"] != "running" else None


@pytest.fixture(scope="module")
def team(postgres_server: Any, seqdesk_template: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    folder = tmp_path_factory.mktemp("two-approvers")
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        tokens = {}
        for name, roles in PEOPLE.items():
            added = seqdesk("people", "add", name, *[a for r in roles for a in ("--role", r)], "--password", "-",
                            "--store", url, data=folder, stdin=PASSWORD + "\n")
            assert added.returncode == 0, added.stderr
            made = seqdesk("people", "token", name, "--name", "e2e", "--store", url, data=folder)
            assert made.returncode == 0, made.stderr
            tokens[name] = made.stdout.strip()
        with team_servers(folder, url, 1) as (server,):
            yield Team(server, url, folder, tokens)
    finally:
        postgres_server.drop_database(url)


def signed_in(browser: Any, team: Team, name: str, options: dict[str, Any], path: str = "/inbox") -> Any:
    """A new browser context in which `name` signed in on the server's /login page, at `path`."""
    page = browser.new_context(**options).new_page()
    page.set_default_timeout(WAIT_MS)
    base = team.server.base_url
    page.goto(base + path)
    assert page.url.startswith(base + "/login")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + path)
    page.wait_for_function("window.socket && window.socket.connected")
    return page


def test_a_desktop_and_a_phone_each_approve_and_the_run_goes_on(team: Team, browser: Any, screenshot: Any) -> None:
    began = time.monotonic()
    status, made = team.api_as("bo", "POST", "/api/sequences", SEQUENCE)
    assert status in (200, 201), made
    status, started = team.api_as("bo", "POST", "/api/runs", {"sequence": "release"})
    assert status == 202, started
    run_id = started["run_id"]
    [asked] = wait_until_sync(lambda: team.api_as("bo", "GET", f"/api/interactions?status=pending&run_id={run_id}")[1],
                              "the step to ask", timeout=WAIT_MS / 1000)
    interaction_id = asked["request"]["interaction_id"]
    approve = {"kind": "approval", "decision": "approved"}

    status, refused = team.api_as("bo", "POST", f"/api/interactions/{interaction_id}/respond", approve)
    assert status == 403, refused
    assert "bo started this run, so someone else must approve its step" in refused["detail"]

    ana = signed_in(browser, team, "ana", DESKTOP)
    expect(ana.get_by_text("Needs you (1)")).to_be_visible()
    expect(ana.get_by_text("0 of 2 approvals")).to_be_visible()
    expect(ana.get_by_text("Started by bo, who may deny it but not approve it.")).to_be_visible()
    screenshot(ana, "two-approvers-desktop-needs-you.png")
    ana.get_by_role("button", name="Run once").click()
    expect(ana.get_by_text("Your approval is kept (1 of 2 approvals)", exact=False)).to_be_visible()
    expect(ana.get_by_text("1 of 2 approvals", exact=True)).to_be_visible()  # the count above it too
    screenshot(ana, "two-approvers-desktop-kept.png")
    ana.get_by_text("Waiting on others (1)").click()
    ana.locator(".inbox-row").first.click()
    expect(ana.get_by_text("Approved by ana at", exact=False).first).to_be_visible()
    screenshot(ana, "two-approvers-desktop-waiting.png")
    assert team.api_as("bo", "GET", f"/api/runs/{run_id}")[1]["status"] == "running"  # 1 of 2: it still waits

    status, twice = team.api_as("ana", "POST", f"/api/interactions/{interaction_id}/respond", approve)
    assert status == 409, twice
    assert "ana already approved this request" in twice["detail"]

    bo = signed_in(browser, team, "bo", DESKTOP)  # the runner: it waits on others, not on him
    expect(bo.get_by_text("Needs you (0)")).to_be_visible()
    bo.get_by_text("Waiting on others (1)").click()
    bo.locator(".inbox-row").first.click()
    started = bo.get_by_text("You started this run, so someone else must approve this step.")
    expect(started).to_have_count(1)  # said once: under the held button, not again in the people line
    expect(started).to_be_visible()
    expect(bo.get_by_role("button", name="Run once")).to_be_disabled()
    screenshot(bo, "two-approvers-runner.png")
    bo.context.close()
    li = signed_in(browser, team, "li.wei", PHONE)
    expect(li.get_by_text("1 of 2 approvals")).to_be_visible()
    expect(li.get_by_text("Approved by ana at", exact=False)).to_be_visible()
    assert li.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(li, "two-approvers-phone.png")
    li.get_by_role("button", name="Run once").click()

    record = wait_until_sync(lambda: team.run_ended(run_id), "the run to finish", timeout=WAIT_MS / 1000)
    assert record["status"] == "succeeded" and record["outputs"]["said"].strip() == "released"
    print(f"\ntwo approvers, sign-in to the run's end: {time.monotonic() - began:.1f} s")
    status, interactions = team.api_as("bo", "GET", f"/api/interactions?run_id={run_id}")
    [answered] = interactions
    assert [(a["person"], a["via"]) for a in answered["approvals"]] == [("ana", "app"), ("li.wei", "app")]
    screenshot(li, "two-approvers-phone-done.png")
    ana.context.close()
    li.context.close()

    exported = seqdesk("--store", team.url, "audit", "export", data=team.folder)
    assert exported.returncode == 0, exported.stderr
    decided = [json.loads(line) for line in exported.stdout.splitlines() if interaction_id in line]
    assert [(e["person"], e["via"], e["decision"]) for e in decided] == [("ana", "app", "approved"),
                                                                        ("li.wei", "app", "approved")], decided


def test_answering_several_at_once_lists_each_command_before_it_is_sent(team: Team, browser: Any,
                                                                      screenshot: Any) -> None:
    runs = []
    for n in range(3):
        step = {"tool": "cmd_run", "args": {"command": f"echo batch-{n}"}}
        document = {"name": f"batch-{n}", "groups": [{"name": f"batch-{n}-go", "tools": json.dumps(step) + " ;"}]}
        assert team.api_as("bo", "POST", "/api/sequences", document)[0] in (200, 201)
        status, started = team.api_as("bo", "POST", "/api/runs", {"sequence": f"batch-{n}"})
        assert status == 202, started
        runs.append(started["run_id"])

    sam = signed_in(browser, team, "sam", DESKTOP)
    expect(sam.get_by_text("Needs you (3)")).to_be_visible()
    sam.get_by_role("button", name="Answer several…").click()
    dialog = sam.locator(".q-dialog")
    for n in (0, 1):
        dialog.locator(".inbox-row").filter(has_text=f"echo batch-{n}").get_by_role("checkbox").click()
    dialog.get_by_role("button", name="Approve selected…").click()
    expect(dialog.get_by_text("Approve these 2?")).to_be_visible()
    expect(dialog.get_by_text("scope: this request only").first).to_be_visible()
    screenshot(sam, "two-approvers-batch-confirm.png")
    dialog.get_by_role("button", name="Approve 2").click()

    assert [wait_until_sync(lambda r=r: team.run_ended(r), "a run to finish", timeout=WAIT_MS / 1000)["status"]
            for r in runs[:2]] == ["succeeded", "succeeded"]
    expect(sam.get_by_text("Needs you (1)")).to_be_visible()
    assert team.api_as("bo", "GET", f"/api/runs/{runs[2]}")[1]["status"] == "running"
    sam.context.close()
