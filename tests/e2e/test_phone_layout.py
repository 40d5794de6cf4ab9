"""Every page at phone size (390×844, and 360 wide) in a real Chromium: nothing scrolls sideways,
the navigation is one tap away in the menu, and the header's controls are big enough for a finger.
The pages' own content is checked on the pages this layout owns (inbox, runs, a run, settings)."""

from __future__ import annotations

from typing import Any

import pytest

PHONE = {"width": 390, "height": 844}
SHELL = {"name": "phone-check", "description": "asks before it runs", "groups": [
    {"name": "copy", "in": {}, "out": {"text": "string"},
     "tools": '{"tool": "cmd_run", "args": {"command": "rsync -a /home/someone/projects/ /mnt/backup/projects-2026/"},'
              ' "as": "text"} ;'}]}
MIN_TARGET = 44


@pytest.fixture(scope="module")
def waiting_run(seqdesk_app) -> dict[str, str]:
    assert seqdesk_app.api("POST", "/api/sequences", SHELL)[0] in (200, 201)
    status, run = seqdesk_app.api("POST", "/api/runs", {"sequence": "phone-check"})
    assert status == 202
    return run


@pytest.fixture
def phone(browser: Any) -> Any:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def settled(page: Any) -> None:
    """The page's own resources loaded (its scripts, styles and fonts) and its main part drawn: what the
    measurements need. Not the network gone idle, which a page whose socket still polls under load never
    reaches (the two tests that waited so timed out in a full run)."""
    page.wait_for_load_state("load")
    page.locator(".seqdesk-main").first.wait_for(state="visible")
    page.wait_for_function("document.fonts.status === 'loaded'")


def sideways(page: Any) -> list[int]:
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


def small_targets(page: Any, selector: str) -> list[str]:
    """Visible controls under `selector` smaller than a finger (44 × 44 CSS px)."""
    return page.evaluate("""([selector, min]) => [...document.querySelectorAll(selector)]
        .filter(e => e.offsetParent !== null)
        .map(e => [e, e.getBoundingClientRect()])
        .filter(([e, r]) => r.width > 0 && (r.width < min || r.height < min))
        .map(([e, r]) => (e.getAttribute('aria-label') || e.innerText.trim().slice(0, 30))
                         + ` ${Math.round(r.width)}x${Math.round(r.height)}`)
    """, [selector, MIN_TARGET])


def pages_to_check(run: dict[str, str]) -> list[str]:
    return ["/", "/run", "/inbox", "/runs", "/settings", f"/run/{run['run_id']}", f"/runs/{run['run_id']}",
            "/sequences/new"]


def test_no_page_scrolls_sideways_and_the_menu_reaches_every_page(seqdesk_app, waiting_run, phone, screenshot):
    for path in pages_to_check(waiting_run):
        phone.goto(seqdesk_app.base_url + path)
        phone.locator("[aria-label='Menu']").wait_for(state="visible")
        settled(phone)
        width, viewport = sideways(phone)
        assert width <= viewport, f"{path} scrolls sideways: {width} px wide in a {viewport} px screen"
        assert small_targets(phone, ".seqdesk-header .q-btn") == [], path
        if path == "/runs":  # the table stacks each run: nothing of it hides beyond its right edge
            phone.get_by_text("Waiting for you to answer cmd_run").wait_for(state="visible")
            inside, box = phone.evaluate("(() => { const m = document.querySelector('.q-table__middle');"
                                         " return [m.scrollWidth, m.clientWidth]; })()")
            assert inside <= box, f"the runs table scrolls inside: {inside} px in {box} px"
            assert phone.get_by_text("What happened").count() == 0 or not phone.get_by_text(
                "What happened").is_visible()
        assert not phone.locator(".seqdesk-nav").is_visible(), f"{path}: the wide navigation shows on a phone"
    phone.goto(seqdesk_app.base_url + "/")
    phone.locator("[aria-label='Menu']").click()
    menu = phone.locator(".seqdesk-menu")
    for label in ("Sequences", "Run", "Inbox", "Runs", "Settings"):
        menu.get_by_text(label, exact=True).wait_for(state="visible")
    # the menu grows in (a CSS transition): measure once it has settled
    phone.wait_for_function("(() => { const m = document.querySelector('.seqdesk-menu');"
                            " return m && m.getAnimations({subtree: true}).length === 0; })()")
    assert small_targets(phone, ".seqdesk-menu .q-item") == []
    screenshot(phone, "phone-menu.png")
    menu.get_by_text("Inbox", exact=True).click()
    phone.wait_for_url("**/inbox")
    assert phone.locator(".seqdesk-menu").count() == 0 or not phone.locator(".seqdesk-menu").is_visible()


def test_the_pages_of_this_layout_have_finger_sized_buttons(seqdesk_app, waiting_run, phone):
    for path in ("/inbox", "/runs", f"/run/{waiting_run['run_id']}", "/settings"):
        phone.goto(seqdesk_app.base_url + path)
        phone.locator("[aria-label='Menu']").wait_for(state="visible")
        settled(phone)
        assert small_targets(phone, ".seqdesk-main .q-btn") == [], path


def test_360_wide_does_not_scroll_sideways_either(seqdesk_app, waiting_run, browser):
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    try:
        for path in ("/inbox", "/runs", "/settings", f"/run/{waiting_run['run_id']}"):
            page.goto(seqdesk_app.base_url + path)
            page.locator("[aria-label='Menu']").wait_for(state="visible")
            settled(page)
            width, viewport = sideways(page)
            assert width <= viewport, f"{path} at 360 px: {width} px wide"
    finally:
        context.close()


def test_the_tab_title_shows_how_many_requests_wait(seqdesk_app, waiting_run, page):
    page.goto(seqdesk_app.base_url + "/inbox")
    page.wait_for_function("document.title.startsWith('(')")
    assert page.title() == "(1) Inbox · SeqDesk"


def test_an_approval_on_a_phone_shows_no_key_hints_and_its_note_placeholder_fits(seqdesk_app, waiting_run, phone,
                                                                                  screenshot):
    """A phone has no keyboard shortcuts: their hint is hidden; the note's placeholder is not cut off."""
    phone.goto(seqdesk_app.base_url + "/inbox")
    phone.get_by_role("button", name="Run once").wait_for(state="visible")
    note = phone.locator(".seqdesk-main textarea[placeholder], .seqdesk-main input[placeholder]").first
    settled(phone)
    screenshot(phone, "phone-inbox-approval.png")
    assert phone.locator(".seqdesk-kbd").count() > 0  # drawn (for a wide window), not shown here
    assert not any(k.is_visible() for k in phone.locator(".seqdesk-kbd").all())
    assert not phone.get_by_role("button", name="Shortcuts").is_visible()
    # the placeholder's whole text fits: it wraps (a textarea) where one line is too narrow for it
    placeholder = note.get_attribute("placeholder") or ""
    fits = note.evaluate("""e => { const s = getComputedStyle(e);
        const c = document.createElement('canvas').getContext('2d'); c.font = s.font;
        const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        return c.measureText(e.placeholder).width <= room
            || (e.tagName === 'TEXTAREA' && s.whiteSpace !== 'nowrap' && e.scrollHeight <= e.clientHeight); }""")
    assert fits, f"the note's placeholder {placeholder!r} is cut off"
