"""End to end in headless Chromium: a person builds the seed's two-group example from an empty
editor, the data picker bringing the first group's input into the second; every click and every
field filled is counted (the target is 30 actions or fewer). Then the same screens are checked at a
phone's width (no sideways scroll, Save in view, 44 px touch targets) and for text contrast (WCAG
AA) in light and dark.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.browser import screenshot_dir

from gui.core.sequences.help import EXAMPLE

CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")
MAX_ACTIONS = 30


class Actions:
    """Clicks and fills, counted: what a person does with the mouse and the keyboard."""

    def __init__(self) -> None:
        self.clicks = 0
        self.fields = 0

    def click(self, locator: Any) -> None:
        locator.click()
        self.clicks += 1

    def fill(self, locator: Any, text: str) -> None:
        locator.fill(text)
        self.fields += 1

    @property
    def total(self) -> int:
        return self.clicks + self.fields


def _card(page: Any, index: int) -> Any:
    return page.locator(".q-card").filter(has_text="Group name").nth(index)


def _tool(act: Actions, page: Any, card: Any, tool: str) -> None:
    act.click(card.get_by_role("button", name="Add a tool"))
    act.click(page.locator(".q-dialog").get_by_text(tool, exact=True))


def test_the_seed_example_is_built_with_the_data_picker_in_30_actions_or_fewer(seqdesk_app: Any, page: Any) -> None:
    from playwright.sync_api import expect

    act = Actions()
    page.goto(f"{seqdesk_app.base_url}/sequences/new")
    example = json.loads(EXAMPLE)
    act.fill(page.get_by_label("Sequence name"), example["name"])
    act.fill(page.get_by_label("What this sequence does"), example["description"])
    act.click(page.get_by_role("button", name="Add your first group"))

    first = _card(page, 0)
    act.fill(first.get_by_label("Group name"), "fetch-one-node")
    act.fill(first.get_by_label("What it does"), "Uptime and date of one node")
    act.click(first.get_by_role("button", name="Add an input"))
    act.fill(first.get_by_label("Name of the input"), "host")
    act.click(first.get_by_role("button", name="Add an output"))
    act.fill(first.get_by_label("Name of the output").nth(0), "summary")
    act.click(first.get_by_role("button", name="Add an output"))
    act.fill(first.get_by_label("Name of the output").nth(1), "load")
    _tool(act, page, first, "cmd_run")
    act.fill(first.get_by_label("Command *").nth(0), "uptime")  # saved to summary: the first output not written
    _tool(act, page, first, "cmd_run")
    act.fill(first.get_by_label("Command *").nth(1), "date")  # and this one to load

    act.click(page.get_by_role("button", name="Add a group"))
    second = _card(page, 1)
    act.fill(second.get_by_label("Group name"), "dig-deeper")
    act.click(second.get_by_role("button", name="Add an output"))
    act.fill(second.get_by_label("Name of the output"), "detail")
    _tool(act, page, second, "echo")
    act.fill(second.get_by_label("Value *"), "checked")
    act.click(second.get_by_role("button", name="Put an input in the text"))
    act.click(page.locator(".q-menu").get_by_text("Group 1 › host · text (you give it when you run)"))
    expect(second.get_by_label("Name of the input")).to_have_value("host")  # declared for the person
    expect(second.get_by_label("Value *")).to_have_value("checked ⤷host")
    act.click(second.get_by_role("button", name="Add a rule"))  # host is not empty: the default for text
    act.click(page.get_by_role("main").get_by_role("button", name="Save", exact=True))
    expect(page.get_by_text("Saved 'check-three-nodes'")).to_be_visible()

    status, stored = seqdesk_app.api("GET", "/api/sequences/check-three-nodes")
    assert status == 200
    _, expected = seqdesk_app.api("POST", "/api/check", {"document": example})
    assert expected["ok"]
    assert _same(stored, example), json.dumps(stored, indent=1)
    report = screenshot_dir() / "editor-actions.json"
    report.write_text(json.dumps({"clicks": act.clicks, "fields": act.fields, "total": act.total}))
    print(f"\nbuilt the seed example in {act.total} actions: {act.clicks} clicks, {act.fields} fields")
    assert act.total <= MAX_ACTIONS, f"{act.total} actions ({act.clicks} clicks, {act.fields} fields)"


def _same(stored: dict[str, Any], example: dict[str, Any]) -> bool:
    from gui.core.sequences.validator import parse_sequence

    return parse_sequence(stored) == parse_sequence(example)


def _audit(page: Any) -> list[dict[str, Any]]:
    page.mouse.move(0, 0)
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
    return list(page.evaluate(CONTRAST_JS))


def test_the_editor_reads_at_wcag_aa_and_fits_a_phone_in_light_and_dark(seqdesk_app: Any, browser: Any) -> None:
    from playwright.sync_api import expect

    seqdesk_app.api("POST", "/api/sequences", {**json.loads(EXAMPLE), "name": "phone-check",
                                               "groups": _renamed(json.loads(EXAMPLE)["groups"])})
    for dark in (False, True):
        for width, height in ((1400, 900), (390, 844), (360, 740)):
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.set_default_timeout(15_000)
            try:
                page.goto(f"{seqdesk_app.base_url}/sequences/phone-check/edit")
                expect(page.get_by_label("Group name").first).to_be_visible()
                if dark:  # chosen once, then drawn dark from the start (no colours half-way through a switch)
                    # The app keeps the choice (preferences.json): after the first context it is dark already.
                    if page.locator("body.body--dark").count() == 0:
                        page.locator("[aria-label='Dark mode']").first.dispatch_event("click")
                    expect(page.locator("body.body--dark")).to_have_count(1)
                    page.reload()
                    expect(page.locator("body.body--dark")).to_have_count(1)
                    expect(page.get_by_label("Group name").first).to_be_visible()
                where = f"{'dark' if dark else 'light'} {width}px"
                low = _audit(page)
                assert low == [], f"{where}: {low[:6]}"
                if width < 500:
                    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), where
                    save = page.get_by_role("main").get_by_role("button", name="Save", exact=True)
                    expect(save).to_be_in_viewport()
                    page.evaluate("window.scrollTo(0, document.body.scrollHeight / 2)")
                    assert page.evaluate(_SAVE_ON_TOP_JS), f"{where}: the floating Save is covered or off screen"
                    page.evaluate("window.scrollTo(0, 0)")
                    small = page.evaluate(_SMALL_TARGETS_JS)
                    assert small == [], f"{where}: touch targets under 44 px: {small[:8]}"
                if width < 500:  # the sequences list fits too
                    page.goto(f"{seqdesk_app.base_url}/")
                    expect(page.get_by_text("phone-check")).to_be_visible()
                    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), where
                    small = page.evaluate(_SMALL_TARGETS_JS)
                    assert small == [], f"list, {where}: touch targets under 44 px: {small[:8]}"
                    low = _audit(page)
                    assert low == [], f"list, {where}: {low[:6]}"
                    page.goto(f"{seqdesk_app.base_url}/sequences/phone-check/edit")
                    expect(page.get_by_label("Group name").first).to_be_visible()
                page.get_by_role("tab", name="Text").click()
                expect(page.locator(".cm-editor")).to_be_visible()
                assert _audit(page) == [], f"text view, {where}"
                background = page.evaluate("getComputedStyle(document.querySelector('.cm-editor')).backgroundColor")
                assert (background != "rgb(255, 255, 255)") == dark, f"{where}: code editor {background}"
                page.screenshot(path=str(screenshot_dir() / f"editor-text-{where.replace(' ', '-')}.png"))
            finally:
                context.close()


def _renamed(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**g, "name": f"{g['name']}-phone"} for g in groups]


_SAVE_ON_TOP_JS = """
(() => { const b = document.querySelector('[aria-label="Save (Ctrl+S)"]'); const r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.right <= innerWidth && r.bottom <= innerHeight && hit !== null && b.contains(hit); })()
"""

_SMALL_TARGETS_JS = """
[...document.querySelectorAll('main button, main a[href], main [role=tab], main .q-chip__icon--remove')]
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
                 && getComputedStyle(e).visibility !== 'hidden' && !e.closest('header'); })
  .map(e => { const r = e.getBoundingClientRect();
              return {what: (e.getAttribute('aria-label') || e.textContent || e.className).trim().slice(0, 40),
                      w: Math.round(r.width), h: Math.round(r.height)}; })
  .filter(t => t.w < 44 || t.h < 44)
"""
