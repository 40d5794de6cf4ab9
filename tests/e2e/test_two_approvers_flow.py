"""Two people approve a step that needs two (issue 26): one at a desktop browser, one on a phone-sized one;
the run goes on only after the second approval.

No accounts exist on this branch, so the app runs as a team server for tests only
(`tests/support/team_app.py`: a directory of four people, and a cookie saying who each browser is).
When sign-in lands, the same flow runs with real accounts: only how each browser becomes a person changes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.app import ROOT, RunningApp, clean_env, free_port, wait_until_up
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000
COOKIE = "seqdesk-test-person"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
STEP = {"tool": "cmd_run", "args": {"command": "echo released"}, "approvers": ["role:oncall"], "required": 2,
        "as": "said"}
SEQUENCE = {"name": "release", "description": "needs two on-call people",
            "groups": [{"name": "release-go", "in": {}, "out": {"said": "string"}, "tools": json.dumps(STEP) + " ;"}]}


@pytest.fixture(scope="module")
def team_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    folder = tmp_path_factory.mktemp("seqdesk-team")
    log, port = folder / "app.log", free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "team_app.py"), "--browser",
                                 "--port", str(port)], cwd=ROOT, env=clean_env(folder / "data"), stdout=out,
                                stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base_url, log)
        yield RunningApp(base_url, folder / "data", log, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def as_person(browser: Any, app: RunningApp, name: str, **options: Any) -> Any:
    context = browser.new_context(**({"viewport": {"width": 1280, "height": 860}} | options))
    context.add_cookies([{"name": COOKIE, "value": name, "url": app.base_url}])
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    return page


def api_as(app: RunningApp, name: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(app.base_url + path, data=json.dumps(body).encode() if body is not None else None,
                                     method=method, headers={"Content-Type": "application/json",
                                                             "Cookie": f"{COOKIE}={name}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def test_a_desktop_and_a_phone_each_approve_and_the_run_goes_on(team_app: RunningApp, browser: Any,
                                                               screenshot: Any) -> None:
    status, body = team_app.api("POST", "/api/sequences", SEQUENCE)
    assert status in (200, 201), body
    status, started = api_as(team_app, "runner", "POST", "/api/runs", {"sequence": "release"})
    assert status == 202, started
    run_id = started["run_id"]

    ana = as_person(browser, team_app, "ana")
    ana.goto(f"{team_app.base_url}/inbox")
    expect(ana.get_by_text("Needs you (1)")).to_be_visible()
    expect(ana.get_by_text("0 of 2 approvals")).to_be_visible()
    expect(ana.get_by_text("Started by runner, who may deny it but not approve it.")).to_be_visible()
    screenshot(ana, "team-inbox-needs-you.png")
    ana.get_by_role("button", name="Run once").click()
    expect(ana.get_by_text("Your approval is kept (1 of 2 approvals)", exact=False)).to_be_visible()
    ana.get_by_text("Waiting on others (1)").click()
    expect(ana.get_by_text("Waiting on others (1)")).to_be_visible()
    ana.locator(".inbox-row").first.click()
    expect(ana.get_by_text("Approved by ana at", exact=False).first).to_be_visible()
    screenshot(ana, "team-inbox-waiting.png")
    status, record = team_app.api("GET", f"/api/runs/{run_id}")
    assert record["status"] == "running"  # one approval of two: the step still waits

    li = as_person(browser, team_app, "li.wei", **PHONE)
    li.goto(f"{team_app.base_url}/inbox")
    expect(li.get_by_text("1 of 2 approvals")).to_be_visible()
    expect(li.get_by_text("Approved by ana at", exact=False)).to_be_visible()
    screenshot(li, "team-inbox-phone.png")
    li.get_by_role("button", name="Run once").click()

    def finished() -> Any:
        code, found = team_app.api("GET", f"/api/runs/{run_id}")
        return found if code == 200 and found["status"] != "running" else None

    record = wait_until_sync(finished, "the run to finish", timeout=WAIT_MS / 1000)
    assert record["status"] == "succeeded" and record["outputs"]["said"].strip() == "released"
    status, interactions = team_app.api("GET", f"/api/interactions?run_id={run_id}")
    (asked,) = interactions
    assert [a["person"] for a in asked["approvals"]] == ["ana", "li.wei"]
    ana.context.close()
    li.context.close()


def test_answering_several_at_once_lists_each_command_before_it_is_sent(team_app: RunningApp, browser: Any,
                                                                      screenshot: Any) -> None:
    runs = []
    for n in range(3):
        step = {"tool": "cmd_run", "args": {"command": f"echo batch-{n}"}}
        document = {"name": f"batch-{n}", "groups": [{"name": f"batch-{n}-go", "tools": json.dumps(step) + " ;"}]}
        assert team_app.api("POST", "/api/sequences", document)[0] in (200, 201)
        status, started = api_as(team_app, "runner", "POST", "/api/runs", {"sequence": f"batch-{n}"})
        assert status == 202, started
        runs.append(started["run_id"])

    sam = as_person(browser, team_app, "sam")
    sam.goto(f"{team_app.base_url}/inbox")
    expect(sam.get_by_text("Needs you (3)")).to_be_visible()
    sam.get_by_role("button", name="Answer several…").click()
    dialog = sam.locator(".q-dialog")
    for n in (0, 1):
        dialog.locator(".inbox-row").filter(has_text=f"echo batch-{n}").get_by_role("checkbox").click()
    dialog.get_by_role("button", name="Approve selected…").click()
    expect(dialog.get_by_text("Approve these 2?")).to_be_visible()
    expect(dialog.get_by_text("scope: this request only").first).to_be_visible()
    screenshot(sam, "team-inbox-batch-confirm.png")
    dialog.get_by_role("button", name="Approve 2").click()

    def ended(run_id: str) -> Any:
        code, found = team_app.api("GET", f"/api/runs/{run_id}")
        return found if code == 200 and found["status"] != "running" else None

    assert [wait_until_sync(lambda r=r: ended(r), "a run to finish", timeout=WAIT_MS / 1000)["status"]
            for r in runs[:2]] == ["succeeded", "succeeded"]
    expect(sam.get_by_text("Needs you (1)")).to_be_visible()
    assert team_app.api("GET", f"/api/runs/{runs[2]}")[1]["status"] == "running"
    sam.context.close()
