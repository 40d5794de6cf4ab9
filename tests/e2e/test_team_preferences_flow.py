"""Preferences across a team's processes, in real Chromium on two real `seqdesk serve` processes on one
PostgreSQL: dark mode and the language chosen on server A are what server B's pages use at once, without
a restart of B (a fresh browser, which has kept nothing of its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.team import PASSWORD, PERSON, team_servers
from support.waiting import wait_until_sync

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.postgres
WAIT_MS = 30_000


def signed_in(browser: Any, base: str) -> Any:
    page = browser.new_context().new_page()  # a browser of its own: no storage, no choice kept
    page.set_default_timeout(WAIT_MS)
    page.goto(base + "/settings")
    page.fill("#name", PERSON)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/settings")
    return page


def test_dark_mode_and_the_language_chosen_on_one_server_are_the_other_servers_at_once(
        postgres_server: Any, seqdesk_template: str, tmp_path: Path, browser: Any) -> None:
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path, url, 2) as (a, b):
            before = signed_in(browser, b.base_url)  # B has drawn pages, light and in English, before the choice
            before.get_by_text("Language").first.wait_for()
            assert before.locator("body.body--dark").count() == 0
            before.context.close()

            on_a = signed_in(browser, a.base_url)
            on_a.get_by_role("button", name="Dark mode").click()
            on_a.wait_for_function("document.body.classList.contains('body--dark')")
            on_a.get_by_text("简体中文").click()
            on_a.wait_for_function("document.documentElement.lang.startsWith('zh')")
            on_a.context.close()

            def b_follows() -> bool:
                page = signed_in(browser, b.base_url)
                try:
                    page.wait_for_load_state("load")  # looked at again until it holds: no need to wait for idle
                    return bool(page.evaluate("document.body.classList.contains('body--dark') && "
                                              "document.documentElement.lang.startsWith('zh')"))
                finally:
                    page.context.close()

            wait_until_sync(b_follows, "B's pages dark and in Chinese", timeout=30)
    finally:
        postgres_server.drop_database(url)
