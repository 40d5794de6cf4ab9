"""`seqdesk serve` and `--connect`, as a person types them: a team server that cannot start says why
(exit 2, a sentence, no traceback); a desktop or a CLI door pointed at a real team server (a real
`seqdesk serve` on a real PostgreSQL, with a token) goes there, checks the token first and opens no
data folder; the desktop window is signed in through its DevTools pipe (a real headless Chromium)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import httpx
import pytest
from support.app import free_port
from support.browser import CHROMIUM, CHROMIUM_ARGS, missing
from support.cli import seqdesk
from support.team import team_servers
from support.waiting import wait_until

pytestmark = pytest.mark.postgres
TOKEN = "team-token-0123456789abcdef"
ONE = {"name": "one-echo", "groups": [{"name": "only", "out": {"said": "string"},
                                       "tools": '{"tool": "echo", "args": {"value": "hi"}, "as": "said"} ;'}]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, postgres_server, seqdesk_template):
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path_factory.mktemp("serve"), url, 1, args=("--name", "seqdesk.test"),
                          SEQDESK_TOKEN=TOKEN) as (one,):
            yield one
    finally:
        postgres_server.drop_database(url)


def without_token(**env: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("SEQDESK_TOKEN", "SEQDESK_CONNECT")} | env


def test_a_team_server_that_cannot_start_says_why_and_exits_2(data, postgres_server, monkeypatch):
    monkeypatch.delenv("SEQDESK_STORE", raising=False)
    for args, words in (
            ((), "a team server needs a PostgreSQL database"),
            (("--store", str(data)), "a team server needs a PostgreSQL database"),
            (("--store", postgres_server.url("no_such_database")), "cannot reach the database"),
            (("--store", postgres_server.url("postgres"), "--host", "0.0.0.0"), "refusing to listen on 0.0.0.0")):
        done = seqdesk("serve", *args, data=data)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert list(data.iterdir()) == []  # a team server opens no data folder


def test_a_team_server_given_a_key_that_is_none_refuses_to_start(data, seqdesk_database_url, monkeypatch):
    monkeypatch.setenv("SEQDESK_SECRET_KEY", "not-a-key")
    done = seqdesk("serve", "--store", seqdesk_database_url, data=data)
    assert done.returncode == 2, done.stderr
    assert "SEQDESK_SECRET_KEY is not a key SeqDesk can use" in done.stderr and "Traceback" not in done.stderr


def test_connect_checks_the_server_and_its_token_before_anything_opens(server, data, monkeypatch):
    monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
    nobody = f"http://127.0.0.1:{free_port()}"
    for args, token, words in ((("--connect", nobody), None, "cannot reach the SeqDesk server"),
                               (("--connect", "ftp://x"), None, "is not a team server's address"),
                               (("--connect", server.base_url), "wrong-token-0123456789", "refused that token")):
        monkeypatch.setenv("SEQDESK_TOKEN", token) if token else monkeypatch.delenv("SEQDESK_TOKEN", raising=False)
        done = seqdesk(*args, "--browser", data=data)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert list(data.iterdir()) == []


def test_the_cli_doors_go_to_the_team_server_named_and_open_no_data_folder(server, data, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQDESK_TOKEN", TOKEN)
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
    assert list(data.iterdir()) == []  # neither opened a data folder here
    monkeypatch.delenv("SEQDESK_TOKEN")
    refused = seqdesk("show", run["run_id"], data=data)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr


async def test_the_desktop_window_is_signed_in_with_the_token(server, tmp_path):
    from gui.connect import probe, sign_in_window
    from gui.devtools_pipe import start_browser

    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    assert await probe(server.base_url, None) == (True, None)  # it wants a token: the login page would ask
    assert await probe(server.base_url, TOKEN) == (True, None)
    process, pipe = await start_browser([CHROMIUM, *CHROMIUM_ARGS, f"--user-data-dir={tmp_path / 'profile'}",
                                         "--remote-debugging-pipe", server.base_url + "/"])
    assert pipe is not None
    try:
        await sign_in_window(pipe, server.base_url, TOKEN)
        targets = (await pipe.call("Target.getTargets"))["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session = (await pipe.call("Target.attachToTarget", targetId=page["targetId"], flatten=True))["sessionId"]

        async def where() -> str | None:
            answer = await pipe.call("Runtime.evaluate", session_id=session, returnByValue=True,
                                     expression="document.readyState == 'complete' && location.pathname")
            return answer.get("result", {}).get("value") or None

        assert await wait_until(where, "the window's page loaded", timeout=30) == "/"  # the app, not /login
    finally:
        pipe.close()
        process.terminate()
        await process.wait()




def test_the_team_server_answers_to_the_names_it_was_given_and_to_no_other(server):
    port = server.base_url.rsplit(":", 1)[1]
    for host, status in ((f"seqdesk.test:{port}", 200), (f"SEQDESK.test:{port}", 200), (f"evil.example:{port}", 421),
                         (f"seqdesk.test:{int(port) + 1}", 421)):
        answer = httpx.get(server.base_url + "/api/health", headers={"Host": host}, timeout=20)
        assert answer.status_code == status, (host, answer.text)
