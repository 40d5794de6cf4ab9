"""Keyboard shortcuts in a real browser: typing never answers, a key right after a request opens does
nothing, and A approves once when the request has settled.

Two runs wait for approval; the person works the inbox with keys only. Waiting is on conditions
(the page's own half-second guard lifting, a dialog appearing), never on a fixed delay.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000
READY = ("window.seqdesk && seqdesk.inboxReadyAt > 0 && performance.now() >= seqdesk.inboxReadyAt"
         " && !document.querySelector('.q-dialog')")  # keys wait for the guard and for dialogs to close


def pending(app: Any) -> list[dict[str, Any]]:
    status, items = app.api("GET", "/api/interactions?status=pending")
    assert status == 200
    return [i for i in items if i["request"].get("sequence_name") == "e2e-keys"]


def test_keys_answer_only_on_purpose(seqdesk_app: Any, page: Any):
    call = {"tool": "cmd_run", "args": {"command": "echo $args.word"}, "as": "said"}
    doc = {"name": "e2e-keys", "groups": [{"name": "e2e-keys-say", "in": {"word": "string"},
                                           "out": {"said": "string"}, "tools": json.dumps(call) + " ;"}]}
    assert seqdesk_app.api("POST", "/api/sequences", doc)[0] in (200, 201)
    for word in ("first", "second"):
        assert seqdesk_app.api("POST", "/api/runs", {"sequence": "e2e-keys", "args": {"word": word}})[0] == 202

    page.goto(f"{seqdesk_app.base_url}/inbox")
    expect(page.get_by_text("Needs you (2)")).to_be_visible(timeout=WAIT_MS)
    # Both are waiting now. Open the inbox again so it opens the newest one: opened before the second
    # request existed it opens the older, which is then last in the list, and J has nowhere to go
    # (seen once in a full run).
    page.goto(f"{seqdesk_app.base_url}/inbox")
    expect(page.get_by_text("Needs you (2)")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_role("button", name="Run once")).to_be_enabled(timeout=WAIT_MS)
    page.wait_for_function(READY, timeout=WAIT_MS)

    # N goes to the note; what is typed there stays there, even "a", "d", "j".
    page.keyboard.press("n")
    note = page.get_by_placeholder("Tell it what to do instead (optional, sent if you choose Don't run)")
    expect(note).to_be_focused(timeout=WAIT_MS)
    page.keyboard.type("a dj")
    page.keyboard.press("Escape")
    expect(note).to_have_value("a dj")
    expect(note).not_to_be_focused()

    # J opens the other request; an A pressed straight after it must not answer what just appeared.
    first_command = page.locator(".inbox-mono .font-mono").first.inner_text()
    page.keyboard.press("j")
    page.keyboard.press("a")
    page.keyboard.press("?")  # keys are handled in order: once the list shows, the A was handled
    expect(page.get_by_text("Keyboard shortcuts").first).to_be_visible(timeout=WAIT_MS)
    assert len(pending(seqdesk_app)) == 2
    page.keyboard.press("Escape")
    expect(page.locator(".inbox-mono .font-mono").first).not_to_have_text(first_command, timeout=WAIT_MS)

    # Once the request has settled, A approves it once (never "always").
    page.wait_for_function(READY, timeout=WAIT_MS)
    page.keyboard.press("a")
    expect(page.get_by_text("Approved: the command will run.")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Needs you (1)")).to_be_visible(timeout=WAIT_MS)
    status, items = seqdesk_app.api("GET", "/api/interactions")
    answered = [i for i in items if i["request"].get("sequence_name") == "e2e-keys" and i["status"] == "resolved"]
    assert len(answered) == 1
    response = answered[0]["result"]["response"]
    assert response["decision"] == "approved" and response["always_allow"] is False
