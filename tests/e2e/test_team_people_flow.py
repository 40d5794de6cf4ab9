"""A team's SeqDesk end to end: the real app on a real PostgreSQL database, its people made with
`seqdesk people`, and a real Chromium. Every page × every role (a page checks the role before it is
drawn), the sign-in page, an admin inviting someone on the People page, the invite link taken in
another browser, a personal token made and signing out on every device. Screenshots of each screen."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.app import ROOT, RunningApp, app_command, clean_env, free_port, wait_until_up
from support.cli import seqdesk

from gui.api.auth import COOKIE
from gui.ui.pages.routes import pages

pytestmark = pytest.mark.postgres
PASSWORD = "a-long-enough-password"
ROLES = ("admin", "author", "runner", "approver")


@pytest.fixture(scope="module")
def team_server(postgres_server: Any, seqdesk_template: str, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[tuple[RunningApp, dict[str, str]]]:
    """The app on a new database, one person per role (the approver is li.wei), each with a token;
    the database's URL is in `tokens["url"]`."""
    folder = tmp_path_factory.mktemp("team")
    url = postgres_server.create_database(template=seqdesk_template)
    tokens: dict[str, str] = {}
    for role in ROLES:
        name = "li.wei" if role == "approver" else f"{role}1"
        done = seqdesk("people", "add", name, "--role", role, "--password", PASSWORD, "--store", url, data=folder)
        assert done.returncode == 0, done.stderr
        made = seqdesk("people", "token", name, "--name", "e2e", "--store", url, data=folder)
        tokens[role] = made.stdout.strip()
    tokens["url"] = url
    log, port = folder / "app.log", free_port()
    env = {**clean_env(folder / "data"), "SEQDESK_STORE": url}
    with log.open("wb") as out:
        proc = subprocess.Popen([*app_command(port)], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base, log)
        yield RunningApp(base, folder / "data", log, proc), tokens
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        postgres_server.drop_database(url)


def test_every_page_checks_the_role_before_it_is_drawn(team_server):
    app, tokens = team_server
    listed = [p for p in pages(team=True) if not p.plain]
    counted = refused = drawn_where_refused = 0
    with httpx.Client(base_url=app.base_url, timeout=30) as client:
        for page in listed:
            path = page.path.replace("{name:path}", "nosuch").replace("{run_id}", "nosuch").replace(
                "{interaction_id}", "nosuch")
            anonymous = client.get(path)
            assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login"), path
            counted += 1
            refused += 1
            for role in ROLES:
                answer = client.get(path, headers={"Authorization": f"Bearer {tokens[role]}"})
                counted += 1
                if page.role in ("signed-in", role):
                    assert answer.status_code == 200, (path, role, answer.status_code)
                    continue
                refused += 1
                drawn_where_refused += "nicegui" in answer.text.lower()
                assert answer.status_code == 403 and f"needs the {page.role} role" in answer.text, (path, role)
    assert drawn_where_refused == 0
    print(f"\npage x role: {len(listed)} pages x 5 identities = {counted}; refused {refused}; "
          f"drawn where refused: {drawn_where_refused}")


def test_sign_in_invite_and_tokens_in_a_browser(team_server, browser, screenshot):
    app, _tokens = team_server
    base = app.base_url
    admin = browser.new_context(viewport={"width": 1280, "height": 860})
    page = admin.new_page()
    page.set_default_timeout(20_000)
    page.goto(base + "/people")
    assert page.url.startswith(base + "/login")
    page.fill("#name", "admin1")
    page.fill("#password", "not-the-password")
    page.click("button[type=submit]")
    page.get_by_text("That name and password do not match a person here.").wait_for()
    screenshot(page, "team-sign-in-wrong.png")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/people")
    cookie = next(c for c in admin.cookies() if c["name"] == COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    page.locator(".nicegui-content").get_by_text("People here").wait_for()
    page.get_by_label("Their name (lower case, for example li.wei)").fill("bo")
    page.get_by_text("runner: start and stop runs").click()
    page.get_by_role("button", name="Make invite link").click()
    link_box = page.locator("input[readonly]").first
    link_box.wait_for()
    link = link_box.input_value()
    assert link.startswith(base + "/invite/")
    page.get_by_text("Send this link to bo.").wait_for()
    screenshot(page, "team-people.png")

    newcomer = browser.new_context(viewport={"width": 390, "height": 844})
    phone = newcomer.new_page()
    phone.set_default_timeout(20_000)
    phone.goto(link)
    phone.get_by_text("Welcome, bo.").wait_for()
    screenshot(phone, "team-invite-phone.png")
    phone.fill("#password", PASSWORD)
    phone.fill("#again", PASSWORD)
    phone.click("button[type=submit]")
    phone.wait_for_url(base + "/")
    phone.goto(base + "/me")
    phone.get_by_text("Your roles: runner").wait_for()
    phone.get_by_label("Name of the new token (for example: laptop CLI)").fill("phone CLI")
    phone.get_by_role("button", name="Make token").click()
    secret = phone.locator("input[readonly]").first
    secret.wait_for()
    assert secret.input_value().startswith("sdp_")
    phone.get_by_text("Copy it now: it is not shown again.").wait_for()
    screenshot(phone, "team-me-phone.png")
    with httpx.Client(base_url=base, timeout=30) as client:
        me = client.get("/api/me", headers={"Authorization": f"Bearer {secret.input_value()}"})
        assert me.json() == {"name": "bo", "roles": ["runner"]}
        refused = client.get("/settings", headers={"Authorization": f"Bearer {secret.input_value()}"})
        assert refused.status_code == 403

    again = browser.new_context()
    reused = again.new_page()
    answer = reused.goto(link)
    assert answer is not None and answer.status == 410
    reused.get_by_text("this invite link was used already").wait_for()

    laptop_context = browser.new_context(viewport={"width": 1280, "height": 860})
    laptop = laptop_context.new_page()
    laptop.set_default_timeout(20_000)
    laptop.goto(base + "/login?next=/runs")
    laptop.fill("#name", "bo")
    laptop.fill("#password", PASSWORD)
    laptop.click("button[type=submit]")
    laptop.wait_for_url(base + "/runs")
    laptop.wait_for_function("window.socket && window.socket.connected")
    phone.get_by_role("button", name="Sign out on every device").click()
    phone.wait_for_url(re.compile(re.escape(base) + r"/login(\?next=%2Fme)?$"))  # signed out, or reloaded first
    laptop.wait_for_url(base + "/login?next=%2Fruns")  # its open page too, at once
    page.goto(base + "/people")  # the admin's session is the admin's own: still signed in
    assert page.url == base + "/people"
    for context in (admin, newcomer, again, laptop_context):
        context.close()


def test_the_sign_in_page_on_a_phone(team_server, browser, screenshot):
    app, _tokens = team_server
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(app.base_url + "/login")
    page.get_by_text("This is a team SeqDesk.").wait_for()
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390
    path: Path = screenshot(page, "team-sign-in-phone.png")
    assert path.exists()
    context.close()


def test_the_cli_reaches_the_team_server_as_the_person_whose_token_it_has(team_server, tmp_path):
    app, tokens = team_server
    sequence = {"name": "team-seq", "groups": [{"name": "g", "in": {}, "out": {},
                                                "tools": '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]}
    with httpx.Client(base_url=app.base_url, timeout=30) as client:
        made = client.post("/api/sequences", json=sequence, headers={"Authorization": f"Bearer {tokens['author']}"})
        assert made.status_code == 201, made.text

    def as_person(role: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**clean_env(tmp_path), "SEQDESK_CONNECT": app.base_url, "SEQDESK_TOKEN": tokens[role]}
        return subprocess.run([*app_command(0)[:3], *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)

    listed = as_person("approver", "list")
    assert listed.returncode == 0 and "team-seq" in listed.stdout, listed.stderr
    refused = as_person("approver", "run", "team-seq")
    assert refused.returncode != 0 and "needs the runner role" in refused.stderr, (refused.stdout, refused.stderr)


def test_an_answer_in_the_inbox_is_recorded_as_the_person_signed_in(team_server, browser, tmp_path):
    import json

    app, tokens = team_server
    with httpx.Client(base_url=app.base_url, timeout=30) as client:
        asked = client.post("/api/asks", json={"kind": "approval", "title": "Deploy", "command": "make deploy",
                                               "asker": "e2e"}, headers={"Authorization": f"Bearer {tokens['runner']}"})
        assert asked.status_code in (200, 201, 202), asked.text
        ask_id = asked.json()["ask_id"]
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{app.base_url}/login?next=/inbox/{ask_id}")
    page.fill("#name", "li.wei")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{app.base_url}/inbox/{ask_id}")
    page.get_by_text("make deploy").first.wait_for()
    page.locator("button.bg-green-9").first.click()  # the approve button (its word depends on the request)
    with httpx.Client(base_url=app.base_url, timeout=30) as client:
        def answered() -> bool:
            got = client.get(f"/api/asks/{ask_id}", headers={"Authorization": f"Bearer {tokens['runner']}"})
            return got.json().get("status") != "pending"

        from support.waiting import wait_until_sync

        wait_until_sync(answered, "the request to be answered", timeout=20)
    context.close()
    exported = seqdesk("--store", tokens["url"], "audit", "export", data=tmp_path)
    assert exported.returncode == 0, exported.stderr
    [entry] = [json.loads(line) for line in exported.stdout.splitlines() if ask_id in line]
    assert (entry["person"], entry["via"], entry["token"], entry["decision"]) == ("li.wei", "app", None, "approved")
