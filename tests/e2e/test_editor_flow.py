"""End to end in headless Chromium: build a two-group sequence by clicking, make a mistake, see it
at its field, fix it, save, run it, and see it succeed.

The real app runs as a subprocess (`python -m gui --browser`) on a free port with its own data
folder (the `seqdesk_app` and `page` fixtures of tests/e2e/conftest.py; Chromium missing skips,
except in CI, where it fails). Waiting is on what the page shows (Playwright's auto-waiting,
bounded by timeouts), never sleeps.
"""

from __future__ import annotations

from typing import Any

from support.browser import screenshot_dir


def test_build_break_fix_save_and_run_a_two_group_sequence(seqdesk_app: Any, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{seqdesk_app.base_url}/sequences/new")

    page.get_by_label("Sequence name").fill("e2e greetings")
    page.get_by_role("button", name="Add your first group").click()
    first = page.locator(".q-card").filter(has_text="Group name").nth(0)
    first.get_by_label("Group name").fill("say-hello")
    first.get_by_role("button", name="Add an output").click()
    first.get_by_label("Name of the output").fill("greeting")
    _add_echo(page, first, "hello")
    first.get_by_label("Save result to").click()
    page.get_by_role("option", name="greeting · text").click()
    # The mistake: rename the output, so the tool saves into a slot that is no longer declared.
    first.get_by_label("Name of the output").fill("greet")

    page.get_by_role("button", name="Add a group").click()
    second = page.locator(".q-card").filter(has_text="Group name").nth(1)
    second.get_by_label("Group name").fill("say-world")
    second.get_by_role("button", name="Add an output").click()
    second.get_by_label("Name of the output").fill("echoed")
    _add_echo(page, second, "world")
    second.get_by_label("Save result to").click()
    page.get_by_role("option", name="echoed · text").click()

    page.get_by_role("button", name="Save", exact=True).click()
    problem = first.get_by_text("'greeting' is not an output of this group")
    expect(problem).to_be_visible()
    expect(page.get_by_role("button", name="1 problem")).to_be_visible()
    page.mouse.move(0, 0)  # no hover tooltip over the picture
    expect(page.get_by_role("tooltip")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir() / "editor-problem.png"), animations="disabled")

    first.get_by_label("Name of the output").fill("greeting")
    expect(problem).to_be_hidden()
    page.keyboard.press("Control+s")
    expect(page.get_by_text("Saved 'e2e greetings'")).to_be_visible()
    expect(page.get_by_text("Not saved")).to_have_count(0)  # a successful save takes the refusal away
    page.mouse.move(0, 0)
    expect(page.locator(".q-notification")).to_have_count(0, timeout=15_000)  # a clean picture for the README
    page.evaluate("window.scrollTo(0, 0)")
    viewport = page.viewport_size
    page.set_viewport_size({"width": viewport["width"], "height": page.evaluate("document.body.scrollHeight")})
    page.screenshot(path=str(screenshot_dir() / "editor.png"))
    page.set_viewport_size(viewport)

    main = page.get_by_role("main")
    main.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_url("**/run?sequence=*")
    main.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_url("**/run/*")
    expect(page.get_by_text("Succeeded").first).to_be_visible()


def _add_echo(page: Any, card: Any, value: str) -> None:
    card.get_by_role("button", name="Add a tool").click()
    page.locator(".q-dialog").get_by_text("echo", exact=True).click()
    card.get_by_label("Value *").fill(value)


def test_text_view_marks_a_typed_mistake_live_without_moving_the_cursor(seqdesk_app: Any, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{seqdesk_app.base_url}/sequences/new?example=1")
    page.get_by_role("tab", name="Text").click()
    line = page.locator(".cm-line").filter(has_text='"when"')
    expect(line).to_be_visible()
    line.click()
    page.keyboard.press("End")
    for _ in range(len(' != \\"\\"",')):
        page.keyboard.press("ArrowLeft")  # right after `$args.host`
    page.keyboard.type("x")  # `$args.hostx` is not an input of the group
    mark = page.locator(".seqdesk-mark-error")
    expect(mark).to_be_visible()  # no Save pressed
    expect(page.get_by_text("1 problem", exact=True)).to_be_visible()
    page.keyboard.type("z")  # the marks came while the cursor sat here: it must still be here
    expect(line).to_contain_text("$args.hostxz !=")
    assert page.evaluate("document.activeElement.closest('.cm-editor') !== null")  # focus stays in the text
    expect(page.locator(".seqdesk-mark-error")).to_have_text("$args.hostxz")
    page.mouse.move(0, 0)
    page.screenshot(path=str(screenshot_dir() / "editor-text-live.png"), animations="disabled")

    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    expect(page.get_by_text("No problems found")).to_be_visible()
    expect(page.locator(".seqdesk-mark-error")).to_have_count(0)
    expect(page.get_by_role("button", name="1 problem")).to_have_count(0)
    expect(line).to_contain_text('"$args.host != ')
