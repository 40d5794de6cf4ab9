"""Settings on real team servers (`seqdesk serve --store postgresql://…`), in real Chromium: a team
offers no phone pairing and opens no phones' listener in any of its processes (phone access chosen in
the team's shared preferences, as a desktop's imported by `seqdesk data import`, opens nothing); each
server's page says how a phone is used instead (sign in in its browser at the team's one address,
SEQDESK_PUBLIC_URL, the same in every process, or that this server answers only on loopback), and
that things are kept in the team's database, not "in memory"."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.cli import seqdesk
from support.team import PASSWORD, team_servers

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.postgres

TEAM_ADDRESS = "https://seqdesk.team.example"


def signed_in_settings(browser: Any, base: str) -> Any:
    """The Settings page of the server at `base`, signed in as the admin, on a phone-sized page."""
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    page.set_default_timeout(20_000)
    page.goto(base + "/settings")
    page.fill("#name", "ana")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/settings")
    return page


def add_admin(url: str, tmp_path: Path) -> None:
    added = seqdesk("people", "add", "ana", "--role", "admin", "--password", "-", "--store", url,
                    data=tmp_path, stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr


def listening_ports(pid: int) -> set[int]:
    """The TCP ports the process `pid` listens on (its sockets, found in /proc/net/tcp and tcp6)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_a_team_servers_settings_say_how_phones_sign_in_and_where_things_are_kept(
        postgres_server: Any, seqdesk_template: str, tmp_path: Path, browser: Any) -> None:
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        add_admin(url, tmp_path)
        with team_servers(tmp_path, url, 1) as (server,):
            page = signed_in_settings(browser, server.base_url)
            page.get_by_text("A team server pairs no phones").wait_for()
            said = page.inner_text("body")
            assert f"This server answers only on this computer ({server.base_url})" in said
            assert "Set SEQDESK_PUBLIC_URL to that address on every server of the team" in said
            assert "Use on your phone" not in said and "paired phones" not in said  # no pairing card that cannot work
            assert "In the team's database" in said and "In memory" not in said
    finally:
        postgres_server.drop_database(url)


def test_every_process_of_a_team_shows_the_teams_one_address_and_none_opens_a_phones_listener(
        postgres_server: Any, seqdesk_template: str, tmp_path: Path, browser: Any) -> None:
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        add_admin(url, tmp_path)
        with psycopg.connect(url, autocommit=True) as conn:  # phone access on, as a desktop's preferences moved in
            conn.execute("INSERT INTO preferences (name, doc) VALUES ('preferences', %s::jsonb)",
                         (json.dumps({"phone_access": True}),))
        with team_servers(tmp_path, url, 2, SEQDESK_PUBLIC_URL=TEAM_ADDRESS + "/") as servers:
            for server in servers:
                page = signed_in_settings(browser, server.base_url)
                page.get_by_text("A team server pairs no phones").wait_for()
                said = page.inner_text("body")
                assert "every server of the team answers at one address" in said, server.name
                assert page.locator(".nicegui-link", has_text=TEAM_ADDRESS).get_attribute("href") == TEAM_ADDRESS
                assert page.locator('img[src^="data:image/svg"]').count() == 1  # its QR code, for the phone's camera
                assert "answers only on this computer" not in said and "Use on your phone" not in said
                page.screenshot(path=str(tmp_path / f"team-settings-{server.name}.png"), full_page=True)
                port = int(server.base_url.rsplit(":", 1)[1])
                assert listening_ports(server.proc.pid) == {port}, server.log_tail()  # its own port, nothing more
    finally:
        postgres_server.drop_database(url)
