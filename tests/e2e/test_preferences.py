"""Choices the app keeps, not the browser: dark mode chosen in one browser profile is there in a
fresh one (as after the window's profile was lost), because it is in the data folder."""

from __future__ import annotations

import json


def test_dark_mode_is_kept_by_the_app(seqdesk_app, browser):
    first = browser.new_context()
    page = first.new_page()
    page.goto(seqdesk_app.base_url + "/")
    page.locator("[aria-label='Dark mode']").click()
    page.wait_for_function("document.body.classList.contains('body--dark')")
    first.close()
    kept = json.loads((seqdesk_app.data_dir / "preferences.json").read_text())
    assert kept["dark"] is True
    fresh = browser.new_context()  # no cookies, no storage: a new profile
    try:
        page = fresh.new_page()
        page.goto(seqdesk_app.base_url + "/inbox")
        page.locator("[aria-label='Dark mode']").wait_for()
        assert page.evaluate("document.body.classList.contains('body--dark')")
    finally:
        fresh.close()
