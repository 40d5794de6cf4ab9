"""Settings on a real team server (`seqdesk serve --store postgresql://…`), in real Chromium: it offers
no phone pairing and says how a phone is used instead (sign in in its browser), and it says things are
kept in the team's database, not "in memory"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.cli import seqdesk
from support.team import PASSWORD, team_servers

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.postgres


def test_a_team_servers_settings_say_how_phones_sign_in_and_where_things_are_kept(
        postgres_server: Any, seqdesk_template: str, tmp_path: Path, browser: Any) -> None:
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        added = seqdesk("people", "add", "ana", "--role", "admin", "--password", "-", "--store", url,
                        data=tmp_path, stdin=PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
        with team_servers(tmp_path, url, 1) as (server,):
            page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
            page.set_default_timeout(20_000)
            base = server.base_url
            page.goto(base + "/settings")
            page.fill("#name", "ana")
            page.fill("#password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(base + "/settings")
            page.get_by_text("A team server pairs no phones").wait_for()
            said = page.inner_text("body")
            assert "open this server's address in the browser and sign in" in said
            assert "Use on your phone" not in said and "paired phones" not in said  # no pairing card that cannot work
            assert "In the team's database" in said and "In memory" not in said
    finally:
        postgres_server.drop_database(url)
