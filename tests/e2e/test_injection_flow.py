"""An input that looks like a shell command runs as text: in a real browser, the person sees which
part came from the input, approves once, and nothing but `echo` ran."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.waiting import wait_until_sync

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000


def test_an_injected_input_is_shown_as_one_quoted_word_and_runs_as_text(seqdesk_app: Any, page: Any, tmp_path):
    marker = tmp_path / "INJECTED"
    call = {"tool": "cmd_run", "args": {"command": "echo detail for $args.host"}, "as": "said"}
    doc = {"name": "e2e-greet-host", "groups": [{"name": "e2e-greet-host-g", "in": {"host": "string"},
                                                 "out": {"said": "string"}, "tools": json.dumps(call) + " ;"}]}
    assert seqdesk_app.api("POST", "/api/sequences", doc)[0] in (200, 201)
    status, started = seqdesk_app.api("POST", "/api/runs", {"sequence": "e2e-greet-host",
                                                            "args": {"host": f"x; touch {marker}"}})
    assert status == 202
    run_id = started["run_id"]
    page.goto(f"{seqdesk_app.base_url}/inbox")
    page.get_by_text(f"echo detail for 'x; touch {marker}'").first.click()
    expect(page.get_by_text("Parts that came from inputs (inserted as text, never as commands)")).to_be_visible(
        timeout=WAIT_MS)
    expect(page.locator(".q-tooltip, [class*=bg-amber]").filter(has_text=f"'x; touch {marker}'").first).to_be_visible(
        timeout=WAIT_MS)
    page.get_by_role("button", name="Run once").click()

    def finished() -> dict[str, Any] | None:
        record: dict[str, Any] = seqdesk_app.api("GET", f"/api/runs/{run_id}")[1]
        return record if record.get("finished_at") else None

    record = wait_until_sync(finished, "the run to finish (the app's state, over HTTP)", timeout=WAIT_MS / 1000)
    assert record["status"] == "succeeded"
    assert record["outputs"]["said"].strip() == f"detail for x; touch {marker}"
    assert not marker.exists()
