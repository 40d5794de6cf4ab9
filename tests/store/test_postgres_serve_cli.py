"""`seqdesk serve` and `--connect`, as a person types them: a team server that cannot start says why
(exit 2, a sentence, no traceback), a shared token among the reasons (people sign in there); one on a
database with nobody to manage it says how to add the first admin and serves every address without a
shared token; a desktop or a CLI door pointed at a real team server (a real `seqdesk serve` on a real
PostgreSQL) goes there and opens no data folder, the CLI's doors with a personal token acting as its
person (what they may do is that person's roles, and the record of decisions names them); the desktop
window opens the server's sign-in page (a real headless Chromium)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from support.app import ROOT, free_port, wait_until_up
from support.browser import CHROMIUM, CHROMIUM_ARGS, missing
from support.cli import seqdesk
from support.team import PERSON, TOKEN_LABEL, TeamServer, serve_env, team_person, team_servers
from support.waiting import wait_until, within

pytestmark = pytest.mark.postgres
ONE = {"name": "one-echo", "groups": [{"name": "only", "out": {"said": "string"},
                                       "tools": '{"tool": "echo", "args": {"value": "hi"}, "as": "said"} ;'}]}
NO_SHARED_TOKEN = "a team's SeqDesk (a postgresql:// store) has no shared token: people sign in"
# The step lets who started the run approve it (on a team, by default someone else must).
ASKS = {"name": "one-asks", "groups": [{
    "name": "only", "out": {"said": "string"},
    "tools": '{"tool": "cmd_run", "args": {"command": "echo asked"}, "as": "said", "self_approve": true} ;'}]}


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, postgres_server, seqdesk_template):
    """One server (named seqdesk.test), and the database's URL."""
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path_factory.mktemp("serve"), url, 1, args=("--name", "seqdesk.test")) as (one,):
            yield one, url
    finally:
        postgres_server.drop_database(url)


@pytest.fixture(scope="module")
def server(team) -> TeamServer:
    return team[0]


def test_a_team_server_that_cannot_start_says_why_and_exits_2(data, postgres_server, seqdesk_database_url,
                                                               monkeypatch):
    monkeypatch.delenv("SEQDESK_STORE", raising=False)
    monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
    shared = "a-shared-token-0123456789abcdef"
    for args, words in (
            (("serve",), "a team server needs a PostgreSQL database"),
            (("serve", "--store", str(data)), "a team server needs a PostgreSQL database"),
            (("serve", "--store", postgres_server.url("no_such_database")), "cannot reach the database"),
            (("--token", shared, "serve", "--store", seqdesk_database_url, "--host", "0.0.0.0"), NO_SHARED_TOKEN)):
        done = seqdesk(*args, data=data)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    monkeypatch.setenv("SEQDESK_TOKEN", shared)
    done = seqdesk("serve", "--store", seqdesk_database_url, data=data)
    assert done.returncode == 2 and NO_SHARED_TOKEN in done.stderr, done.stderr
    assert list(data.iterdir()) == []  # a team server opens no data folder


def test_a_team_server_given_a_key_that_is_none_refuses_to_start(data, seqdesk_database_url, monkeypatch):
    monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
    monkeypatch.setenv("SEQDESK_SECRET_KEY", "not-a-key")
    done = seqdesk("serve", "--store", seqdesk_database_url, data=data)
    assert done.returncode == 2, done.stderr
    assert "SEQDESK_SECRET_KEY is not a key SeqDesk can use" in done.stderr and "Traceback" not in done.stderr


def test_a_team_server_with_nobody_yet_says_how_to_add_the_first_admin_and_serves_off_loopback(
        tmp_path, seqdesk_database_url):
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gui", "serve", "--store", seqdesk_database_url, "--host",
                                 "0.0.0.0", "--port", str(port)], cwd=ROOT, env=serve_env(tmp_path),
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base, log)
        said = log.read_text(errors="replace")
        assert "nobody can manage this team's SeqDesk yet: add the first admin with `seqdesk people add" in said
        assert httpx.get(base + "/api/tools", timeout=20).status_code == 401  # nobody signed in: nothing shown
        page = httpx.get(base + "/", timeout=20)
        assert page.status_code == 303 and page.headers["location"].startswith("/login"), page.headers
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_connect_checks_the_server_before_anything_opens(server, data, monkeypatch):
    monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
    nobody = f"http://127.0.0.1:{free_port()}"
    for args, words in ((("--connect", nobody), "cannot reach the SeqDesk server"),
                        (("--connect", "ftp://x"), "is not a team server's address")):
        done = seqdesk(*args, "--browser", data=data)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert list(data.iterdir()) == []


def decisions(url: str, data: Path) -> list[dict]:
    done = seqdesk("audit", "export", "--store", url, "--format", "jsonl", data=data)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_the_cli_doors_go_to_the_team_server_named_as_the_person_and_open_no_data_folder(team, data, tmp_path,
                                                                                       monkeypatch):
    server, url = team
    monkeypatch.setenv("SEQDESK_TOKEN", server.token)
    monkeypatch.delenv("SEQDESK_CONNECT", raising=False)
    file = tmp_path / "one.json"
    file.write_text(json.dumps(ONE), encoding="utf-8")
    done = seqdesk("run", str(file), "--connect", server.base_url, "--json", data=data)
    assert done.returncode == 0, done.stderr
    assert "the run happens on the team's SeqDesk server" in done.stderr
    run = json.loads(done.stdout)
    assert run["status"] == "succeeded" and run["outputs"] == {"said": "hi"}
    monkeypatch.setenv("SEQDESK_CONNECT", server.base_url)
    shown = seqdesk("show", run["run_id"], "--json", data=data)
    assert shown.returncode == 0 and json.loads(shown.stdout)["run_id"] == run["run_id"], shown.stderr
    asks = tmp_path / "asks.json"
    asks.write_text(json.dumps(ASKS), encoding="utf-8")
    approved = seqdesk("run", str(asks), "--yes", "--json", data=data)  # approved at this terminal, as ada
    assert approved.returncode == 0, approved.stderr
    asked = json.loads(approved.stdout)
    assert asked["status"] == "succeeded" and asked["outputs"] == {"said": "asked"}, asked
    [entry] = [e for e in decisions(url, data) if e["run_id"] == asked["run_id"]]
    assert (entry["decision"], entry["person"], entry["token"]) == ("approved", PERSON, TOKEN_LABEL), entry
    assert list(data.iterdir()) == []  # neither opened a data folder here
    monkeypatch.delenv("SEQDESK_TOKEN")
    refused = seqdesk("show", run["run_id"], data=data)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    monkeypatch.setenv("SEQDESK_TOKEN", team_person(url, "li.wei", "li's laptop", roles=("approver",)))
    not_a_runner = seqdesk("run", str(file), data=data)  # li.wei may answer, not start runs
    assert not_a_runner.returncode != 0 and "runner" in not_a_runner.stderr, not_a_runner.stderr


def agent(data: Path, url: str, token: str) -> StdioServerParameters:
    """`seqdesk mcp --connect URL` as an agent spawns it, with a person's token."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env.update(SEQDESK_DATA=str(data), SEQDESK_TOKEN=token)
    env.pop("SEQDESK_CONNECT", None)
    return StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp", "--connect", url], cwd=str(ROOT),
                                 env=env)


async def test_seqdesk_mcp_connected_acts_as_the_person_of_its_token(team, data):
    server, url = team
    async with Client(agent(data, server.base_url, server.token)) as client:
        saved = await client.call_tool("seq_create", {**ONE, "name": "made-by-mcp"})
        assert not saved.is_error, saved
        ran = await client.call_tool("seq_run", {"name": "made-by-mcp"})
        assert not ran.is_error, ran
    assert "made-by-mcp" in {s["name"] for s in server.ok("GET", "/api/sequences")}
    approver = team_person(url, "li.wei", "li's agent", roles=("approver",))
    async with Client(agent(data, server.base_url, approver)) as client:
        refused = await client.call_tool("seq_create", {**ONE, "name": "made-by-li"})
        assert refused.is_error and "author" in str(refused.content), refused  # li.wei writes no sequences
    assert "made-by-li" not in {s["name"] for s in server.ok("GET", "/api/sequences")}
    assert list(data.iterdir()) == []


async def test_the_desktop_window_opens_the_servers_sign_in_page(server, tmp_path):
    from gui.connect import probe
    from gui.devtools_pipe import start_browser

    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    assert await probe(server.base_url) is None
    process, pipe = await start_browser([CHROMIUM, *CHROMIUM_ARGS, f"--user-data-dir={tmp_path / 'profile'}",
                                         "--remote-debugging-pipe", server.base_url + "/"])
    assert pipe is not None
    try:
        targets = (await pipe.call("Target.getTargets"))["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session = (await pipe.call("Target.attachToTarget", targetId=page["targetId"], flatten=True))["sessionId"]

        async def where() -> str | None:
            answer = await pipe.call("Runtime.evaluate", session_id=session, returnByValue=True,
                                     expression="document.readyState == 'complete' && "
                                                "!!document.querySelector('[data-testid=sign-in-form]') && "
                                                "location.pathname")
            return answer.get("result", {}).get("value") or None

        assert await wait_until(where, "the window's sign-in page", timeout=30) == "/login"
    finally:
        pipe.close()
        process.terminate()
        await within(process.wait(), "the window's browser to end")


def test_the_team_server_answers_to_the_names_it_was_given_and_to_no_other(server):
    port = server.base_url.rsplit(":", 1)[1]
    for host, status in ((f"seqdesk.test:{port}", 200), (f"SEQDESK.test:{port}", 200), (f"evil.example:{port}", 421),
                         (f"seqdesk.test:{int(port) + 1}", 421)):
        answer = httpx.get(server.base_url + "/api/health", headers={"Host": host}, timeout=20)
        assert answer.status_code == status, (host, answer.text)


def test_a_server_given_a_live_servers_process_name_or_a_bad_one_refuses_to_start(team, data, monkeypatch):
    from gui.cli.serve import default_process_name

    one, url = team
    monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
    taken = default_process_name(int(one.base_url.rsplit(":", 1)[1]))  # the running server's name, by default
    done = seqdesk("serve", "--store", url, "--port", str(free_port()), "--process-name", taken, data=data)
    assert done.returncode == 2, done.stderr
    assert f"another SeqDesk process named '{taken}' is serving this database now" in done.stderr
    assert "Traceback" not in done.stderr
    done = seqdesk("serve", "--store", url, "--process-name", "two words", data=data)
    assert done.returncode == 2 and "'two words' is not a process's name" in done.stderr, done.stderr
