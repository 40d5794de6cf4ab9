"""What ended a run, read on its page in a real browser after each way a run can be ended from outside:
the app closed (SIGTERM) while a request waited, the app killed (SIGKILL) and started again, an agent's
MCP client that stopped waiting (a real `seqdesk mcp` talking to the app), and the person's Stop.
Each page says the cause in words ("Stopped: the app was closed"), never blames the person for what
they did not do, never doubles a word ("Cancelled: cancelled"), never shows a finished run's tool as
"queued", and gives an interrupted run the time up to its last event (not "Took 0.0 s")."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest
from support.app import RunningApp, running_app
from support.browser import settled
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 20_000
DOC = {"name": "deploy", "groups": [
    {"name": "warm-up", "tools": json.dumps({"tool": "sleep", "args": {"seconds": 1}}) + " ;"},
    {"name": "ask-first", "tools": json.dumps({"tool": "cmd_run", "args": {"command": "echo shipped"}}) + " ;"},
    {"name": "tidy", "tools": json.dumps({"tool": "echo", "args": {"value": "done"}}) + " ;"}]}


def folder(tmp_path: Path, name: str) -> Path:
    """Where one start of the app keeps its log (each start its own)."""
    path = tmp_path / name
    path.mkdir()
    return path


def waiting_run(app: RunningApp) -> tuple[str, str]:
    """A run of DOC whose approval waits (its first group took a second): its id and its request's."""
    status, body = app.api("POST", "/api/sequences", DOC)
    assert status in (200, 201), body
    status, body = app.api("POST", "/api/runs", {"sequence": "deploy"})
    assert status == 202, body
    run_id = body["run_id"]
    [pending] = wait_until_sync(lambda: app.api("GET", f"/api/interactions?status=pending&run_id={run_id}")[1])
    return run_id, pending["interaction_id"]


def run_page_words(app: RunningApp, page: Any, run_id: str) -> str:
    page.goto(f"{app.base_url}/run/{run_id}")
    expect(page.get_by_text(re.compile(r"^Took "))).to_be_visible(timeout=WAIT_MS)
    settled(page)
    return str(page.locator("body").inner_text())


def runs_list_reason(app: RunningApp, page: Any, run_id: str) -> str:
    page.goto(f"{app.base_url}/runs")
    row = page.locator("tr").filter(has=page.locator(f"a[href='/runs/{run_id}']"))
    expect(row).to_be_visible(timeout=WAIT_MS)
    return str(row.locator("td.reason-cell").inner_text())


def inbox_history_words(app: RunningApp, page: Any) -> str:
    page.goto(f"{app.base_url}/inbox")
    page.get_by_role("tab", name=re.compile("History")).click()
    expect(page.get_by_text("Run a command").first).to_be_visible(timeout=WAIT_MS)
    return str(page.locator("body").inner_text())


def took_seconds(words: str) -> float:
    match = re.search(r"Took (\d+(?:\.\d+)?) s", words)
    assert match, words
    return float(match.group(1))


def assert_never_blamed_nor_doubled(words: str) -> None:
    assert "Stopped by you" not in words and "stopped by you" not in words
    assert "Cancelled: cancelled" not in words
    assert "Queued" not in words  # no tool's chip (the timeline's legend names the colour "queued")
    [progress] = [line for line in words.splitlines() if line.startswith("Finished · ")]
    assert "queued" not in progress


def test_closing_the_app_while_a_request_waits_reads_the_app_was_closed(tmp_path: Path, page: Any,
                                                                       screenshot: Any):
    data = tmp_path / "data"
    with running_app(folder(tmp_path, "first"), data) as app:
        run_id, request_id = waiting_run(app)
        assert app.proc is not None
        app.proc.send_signal(signal.SIGTERM)  # what `kill`, a logout or a service manager sends
        app.proc.wait(timeout=30)
    with running_app(folder(tmp_path, "second"), data) as app:
        record = app.api("GET", f"/api/runs/{run_id}")[1]
        assert (record["status"], record["cause"]) == ("stopped", "app_closed")
        request = app.api("GET", f"/api/interactions/{request_id}")[1]
        assert request["result"] == {"status": "cancelled", "interaction_id": request_id,
                                     "reason": "session_disposed", "cause": "app_closed"}
        words = run_page_words(app, page, run_id)
        screenshot(page, "run-stopped-app-closed.png")
        assert words.count("Stopped: the app was closed") >= 3  # the run, its group and its tool
        assert "Not run: the app was closed" in words  # the group that had not started
        assert "Finished · 1 of 3 tools succeeded" in words
        assert_never_blamed_nor_doubled(words)
        assert runs_list_reason(app, page, run_id) == "Stopped: the app was closed"
        history = inbox_history_words(app, page)
        assert "Reason: the app was closed" in history and "Cancelled: cancelled" not in history


def test_killing_the_app_reads_the_app_stopped_with_the_time_up_to_its_last_event(tmp_path: Path, page: Any,
                                                                                 screenshot: Any):
    data = tmp_path / "data"
    with running_app(folder(tmp_path, "first"), data) as app:
        run_id, request_id = waiting_run(app)
        assert app.proc is not None
        app.proc.kill()  # SIGKILL: nothing of the app runs after this
        app.proc.wait(timeout=30)
    with running_app(folder(tmp_path, "second"), data) as app:
        record = app.api("GET", f"/api/runs/{run_id}")[1]
        assert (record["status"], record["cause"]) == ("interrupted", "app_stopped")
        request = app.api("GET", f"/api/interactions/{request_id}")[1]
        assert (request["result"]["reason"], request["result"]["cause"]) == ("runtime_interrupted", "app_stopped")
        words = run_page_words(app, page, run_id)
        screenshot(page, "run-interrupted-app-stopped.png")
        assert took_seconds(words) >= 1.0  # the first group slept a second: never "Took 0.0 s"
        assert words.count("Interrupted: the app stopped") >= 3
        assert "Not run: the app stopped" in words
        assert_never_blamed_nor_doubled(words)
        assert runs_list_reason(app, page, run_id) == "Interrupted: the app stopped"


def test_an_agent_whose_mcp_client_gave_up_reads_the_agent_stopped_waiting(tmp_path: Path, page: Any,
                                                                          screenshot: Any):
    """A run an agent stopped waiting for, as its door stops it (`seqdesk mcp` with no inbox to answer
    in stops its runs so: `POST /api/runs/{id}/stop {"cause": "agent_gave_up"}` is what its door sends;
    with an app to answer in, the run goes on for the person: tests/mcp/test_mcp_server.py)."""
    with running_app(folder(tmp_path, "app"), tmp_path / "data") as app:
        run_id, _request = waiting_run(app)
        status, body = app.api("POST", f"/api/runs/{run_id}/stop", {"cause": "agent_gave_up"})
        assert status == 200, body
        [record] = wait_until_sync(lambda: app.api("GET", "/api/runs?status=stopped")[1])
        assert (record["cause"], record["error"]) == ("agent_gave_up", "stopped: the agent stopped waiting")
        words = run_page_words(app, page, record["run_id"])
        screenshot(page, "run-stopped-agent-gave-up.png")
        assert words.count("Stopped: the agent stopped waiting") >= 3
        assert "Not run: the agent stopped waiting" in words
        assert_never_blamed_nor_doubled(words)
        assert "stopped by the user" not in words


def test_the_persons_stop_reads_stopped_by_you(tmp_path: Path, page: Any):
    with running_app(tmp_path, tmp_path / "data") as app:
        run_id, _request = waiting_run(app)
        page.goto(f"{app.base_url}/run/{run_id}")
        expect(page.get_by_text("1 request needs you")).to_be_visible(timeout=WAIT_MS)
        settled(page)
        page.get_by_role("button", name="Stop run").click()
        page.get_by_role("dialog").get_by_role("button", name="Stop run").click()
        expect(page.get_by_text(re.compile(r"^Took "))).to_be_visible(timeout=WAIT_MS)
        assert app.api("GET", f"/api/runs/{run_id}")[1]["cause"] == "person"
        words = run_page_words(app, page, run_id)
        assert words.count("Stopped by you") >= 3
        assert "Not run: you stopped the run" in words
        assert "Cancelled: cancelled" not in words and "Queued" not in words
        assert runs_list_reason(app, page, run_id) == "Stopped by you"
