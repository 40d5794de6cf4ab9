"""A person changes a command in the inbox and presses the big button: the change is what runs.

The real app in a subprocess, headless Chromium. The command as asked and the command as changed each
write their own file, so the files on disk say which one ran (and the run's output says it too); the
run's record and the inbox's History then say "Changed by you" with both texts. The card is
screenshotted before and after the change, in light and dark, and its words are checked for contrast.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.browser import screenshot_dir, settled

expect = pytest.importorskip("playwright.sync_api").expect

WAIT_MS = 15_000
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")


def start(app: Any, name: str, command: str) -> str:
    call = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    doc = {"name": name, "groups": [{"name": f"{name}-g", "in": {}, "out": {"said": "string"},
                                     "tools": json.dumps(call) + " ;"}]}
    assert app.api("POST", "/api/sequences", doc)[0] in (200, 201)
    status, started = app.api("POST", "/api/runs", {"sequence": name, "args": {}})
    assert status == 202, started
    return str(started["run_id"])


def shoot(page: Any, name: str) -> None:
    primary = page.get_by_role("button", name=re.compile("^(Run once|Run the edited)"))
    card = page.locator(".q-card").filter(has=primary).first
    card.screenshot(path=str(screenshot_dir() / name), animations="disabled")


def low_contrast(page: Any) -> list[dict[str, Any]]:
    page.mouse.move(0, 0)
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    return list(page.evaluate(CONTRAST_JS))


def test_the_edited_command_runs_from_the_primary_button_and_the_record_says_so(seqdesk_app: Any, page: Any):
    folder = seqdesk_app.data_dir.parent
    asked, edited = folder / "asked.txt", folder / "edited.txt"
    asked_command, edited_command = f"echo as-asked | tee {asked}", f"echo as-edited | tee {edited}"
    run_id = start(seqdesk_app, "e2e-edit", asked_command)

    page.goto(f"{seqdesk_app.base_url}/inbox")
    run_once = page.get_by_role("button", name="Run once")
    expect(run_once).to_be_enabled(timeout=WAIT_MS)
    settled(page)
    assert low_contrast(page) == [], "light, as asked"
    for dark in (False, True):
        if dark:
            page.locator("[aria-label='Dark mode']").first.dispatch_event("click")
            expect(page.locator("body.body--dark")).to_have_count(1, timeout=WAIT_MS)
        shoot(page, f"inbox-edit-before-{'dark' if dark else 'light'}.png")

    page.get_by_text("Edit the command before it runs").click()
    box = page.locator("textarea:not([placeholder])")  # the command, not the note (a textarea too)
    expect(box).to_have_value(asked_command, timeout=WAIT_MS)
    box.fill(edited_command)
    primary = page.get_by_role("button", name="Run the edited command")
    expect(primary).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_role("button", name="Run once")).to_have_count(0)
    expect(page.get_by_role("button", name="Allow more…")).to_be_disabled()
    struck = page.locator(".inbox-mono.line-through")
    expect(struck).to_have_count(1)
    expect(struck).to_contain_text(asked_command)
    expect(page.get_by_text("Changed by you: this runs instead")).to_be_visible()
    settled(page)
    assert low_contrast(page) == [], "dark, changed"
    shoot(page, "inbox-edit-after-dark.png")
    page.locator("[aria-label='Dark mode']").first.dispatch_event("click")
    expect(page.locator("body.body--dark")).to_have_count(0, timeout=WAIT_MS)
    settled(page)
    assert low_contrast(page) == [], "light, changed"
    shoot(page, "inbox-edit-after-light.png")

    primary.click()
    expect(page.get_by_text("Approved: your edited command will run.")).to_be_visible(timeout=WAIT_MS)
    page.goto(f"{seqdesk_app.base_url}/run/{run_id}")
    expect(page.get_by_text("Finished · 1 of 1 tools succeeded")).to_be_visible(timeout=WAIT_MS)
    assert edited.read_text().strip() == "as-edited" and not asked.exists()  # the change ran, the asked did not
    status, record = seqdesk_app.api("GET", f"/api/runs/{run_id}")
    assert status == 200 and record["outputs"] == {"said": "as-edited"}
    expect(page.get_by_text("Changed by you, from:")).to_be_visible()
    page.get_by_role("button", name="Show details of cmd_run").click()
    changed = page.locator(".line-through").filter(has_text=asked_command)
    expect(changed.first).to_be_visible(timeout=WAIT_MS)
    mine = {"Changed by you", "Changed by you, from:", "as asked", "as sent", asked_command, edited_command}
    assert [low for low in low_contrast(page) if low["text"] in mine] == []  # the run panel's own are not ours
    screenshot = screenshot_dir() / "run-panel-edited.png"
    page.screenshot(path=str(screenshot), full_page=True, animations="disabled")

    page.goto(f"{seqdesk_app.base_url}/inbox")
    page.get_by_role("tab", name="History").click()
    expect(page.get_by_text(f"Changed by you: {asked_command} → {edited_command}")).to_be_visible(timeout=WAIT_MS)
