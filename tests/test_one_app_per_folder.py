"""One app per data folder, whichever door comes first: `seqdesk mcp` on a folder no app serves starts the
app in the background (no window) and goes through it, so a person can answer what the agent's runs ask;
the SeqDesk a person starts afterwards joins it (it opens its window) instead of refusing; and an app
started for a program ends once that program has gone, unless a person joined it. `seqdesk run` runs in
such an app too (answering its requests at its terminal, as before), so a person's SeqDesk joins it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters
from support.app import ROOT, clean_env, process_gone
from support.waiting import read_until, wait_until, wait_until_sync

from gui.second_launch import read_endpoint

T = 120.0  # the app starts in a few seconds; on a loaded machine, in tens of them
HELLO = {"name": "hello", "description": "asks before it runs",
         "groups": [{"name": "say", "in": {}, "out": {"text": "string"},
                     "tools": '{"tool": "cmd_run", "args": {"command": "echo hi"}, "as": "text"} ;'}]}


def agent(data: Path, **env: str) -> StdioServerParameters:
    """`seqdesk mcp` as an agent spawns it, on `data` (no app serves it yet)."""
    return StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(ROOT),
                                 env={**clean_env(data), **env})


def stop_app(data: Path) -> None:
    endpoint = read_endpoint(data)
    if endpoint is None:
        return
    pid = int(endpoint["pid"])
    os.kill(pid, signal.SIGTERM)
    wait_until_sync(lambda: process_gone(pid), "the background app to end", timeout=30)


async def test_the_agents_approval_waits_in_an_app_started_for_it_and_the_person_joins_it(tmp_path):
    data = tmp_path / "data"
    opened = tmp_path / "browser-args"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$@" > "{opened}"\nexec sleep 60\n')
    browser.chmod(0o755)
    try:
        async with asyncio.timeout(3 * T), Client(agent(data, DISPLAY=":99", SEQDESK_BROWSER=str(browser))) as client:
            saved = await client.call_tool("seq_create", HELLO)
            assert not saved.is_error, saved
            endpoint = read_endpoint(data)
            assert endpoint is not None, "no app serves the folder"
            async with httpx.AsyncClient(base_url=str(endpoint["url"])) as app:
                assert "hello" in {s["name"] for s in (await app.get("/api/sequences")).json()}
                run = asyncio.create_task(client.call_tool("seq_run", {"name": "hello"}))
                item = await _pending(app)
                answer = await app.post(f"/api/interactions/{item['interaction_id']}/respond",
                                        json={"kind": "approval", "decision": "approved"})
                assert answer.status_code == 200
                result = await run
            assert not result.is_error, result
            joined = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-m", "gui"], cwd=ROOT, capture_output=True, text=True, timeout=T,
                env={**clean_env(data), "SEQDESK_NO_DIALOG": "1"})
        assert joined.returncode == 0, joined.stderr
        assert "already open" in joined.stderr
        said = await wait_until(lambda: opened.exists() and opened.read_text(), "the app to open its window")
        assert f"--app={endpoint['url']}/" in said
        assert read_endpoint(data) is not None  # joined: it is the person's now, and stays when the agent leaves
    finally:
        await asyncio.to_thread(stop_app, data)


async def test_an_app_started_for_an_agent_ends_once_the_agent_has_gone(tmp_path):
    data = tmp_path / "data"
    async with asyncio.timeout(3 * T), Client(agent(data)) as client:
        assert not (await client.call_tool("seq_list", {})).is_error
        endpoint = read_endpoint(data)
        assert endpoint is not None
    pid = int(endpoint["pid"])
    try:
        await wait_until(lambda: read_endpoint(data) is None, "the app to end after the agent", timeout=T)
    finally:
        if not process_gone(pid):
            os.kill(pid, signal.SIGTERM)


async def _pending(app: httpx.AsyncClient) -> dict[str, Any]:
    async def found() -> dict[str, Any] | None:
        items = (await app.get("/api/interactions", params={"status": "pending"})).json()
        return items[0] if items else None

    return await wait_until(found, "the agent's approval in the app's inbox", timeout=T)


def test_a_person_starting_seqdesk_during_a_terminals_run_joins_the_app_it_runs_in(tmp_path):
    data = tmp_path / "data"
    opened, browser = tmp_path / "browser-args", tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$@" > "{opened}"\nexec sleep 60\n')
    browser.chmod(0o755)
    sequence = tmp_path / "wait.json"
    sequence.write_text(json.dumps({"name": "wait", "groups": [{"name": "g", "in": {}, "out": {}, "tools":
                                    '{"tool": "cmd_run", "args": {"command": "sleep 120"}} ;'}]}))
    env = {**clean_env(data), "DISPLAY": ":99", "SEQDESK_BROWSER": str(browser)}
    run = subprocess.Popen([sys.executable, "-m", "gui", "run", str(sequence), "--yes"], cwd=ROOT, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        endpoint = wait_until_sync(lambda: read_endpoint(data), "the run's app to serve the folder", timeout=T)
        joined = subprocess.run([sys.executable, "-m", "gui"], cwd=ROOT, capture_output=True, text=True, timeout=T,
                                env={**clean_env(data), "SEQDESK_NO_DIALOG": "1"})
        assert joined.returncode == 0, joined.stderr
        assert "already open" in joined.stderr
        said = wait_until_sync(lambda: opened.exists() and opened.read_text(), "the app to open its window")
        assert f"--app={endpoint['url']}/" in said
        assert run.poll() is None  # the run goes on in the app the person now has open
    finally:
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=T)
        stop_app(data)


def background_app(data: Path, program: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    """The app as `start_background` starts it for `program`: no window, ending once `program` has gone."""
    env = {**clean_env(data), "SEQDESK_BACKGROUND_FOR": str(program.pid), "SEQDESK_NO_DIALOG": "1"}
    app = subprocess.Popen([sys.executable, "-m", "gui", "--browser"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_until_sync(lambda: _serving(data) == app.pid, "the background app to serve the folder", timeout=T)
    return app


def _serving(data: Path) -> int | None:
    """The pid of the app that serves `data` and answers, if one does."""
    endpoint = read_endpoint(data)
    if endpoint is None:
        return None
    try:
        answered = httpx.get(f"{endpoint['url']}/api/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return None
    return int(endpoint["pid"]) if answered else None


def _end(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=T)


def test_the_persons_seqdesk_waits_out_an_app_that_is_ending_and_starts(tmp_path):
    data = tmp_path / "data"
    program = subprocess.Popen(["sleep", "600"])
    old = background_app(data, program)
    person: subprocess.Popen[str] | None = None
    try:
        os.kill(old.pid, signal.SIGSTOP)  # it holds the folder and answers no more, as an app that is ending
        person = subprocess.Popen([sys.executable, "-m", "gui", "--browser"], cwd=ROOT, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  env={**clean_env(data), "SEQDESK_NO_DIALOG": "1"})
        assert person.stderr is not None
        read_until(person.stderr, "waiting up to", "the person's SeqDesk to wait (instead of refusing: "
                   "\"in use by another SeqDesk\")", timeout=T)
        os.kill(old.pid, signal.SIGKILL)  # the old app has ended: the folder is let go
        old.wait(timeout=T)
        wait_until_sync(lambda: _serving(data) == person.pid, "the person's SeqDesk to serve the folder", timeout=T)
    finally:
        if person is not None:
            person.terminate()
            person.wait(timeout=T)
        _end(old)
        _end(program)


def test_a_run_arriving_while_an_ending_app_still_holds_the_folder_goes_through_the_app_it_starts(tmp_path):
    """The app `seqdesk run` starts waits for the folder, as the person's does, rather than ending at once
    (and the run failing after OTHER_APP_SECONDS, although the folder was let go in a moment)."""
    from gui.store.lock import InstanceLock

    data = tmp_path / "data"
    data.mkdir()
    sequence = tmp_path / "hi.json"
    sequence.write_text(json.dumps({"name": "hi", "groups": [{"name": "g", "in": {}, "out": {}, "tools":
                                    '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]}))
    held = InstanceLock(data).acquire()  # an app ending: it removed its endpoint, and has not let go yet
    run: subprocess.Popen[str] | None = None
    try:
        run = subprocess.Popen([sys.executable, "-m", "gui", "run", str(sequence), "--yes", "--json"], cwd=ROOT,
                               env=clean_env(data), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        log = data / "background.log"
        said = wait_until_sync(lambda: log.exists() and log.read_text(), "the run's app to meet the held folder",
                               timeout=T)
        assert "waiting up to" in said, said  # not "in use by another SeqDesk": it waits
        held.release()  # the ending app lets go
        out, err = run.communicate(timeout=T)
        assert run.returncode == 0, err
        assert json.loads(out)["status"] == "succeeded"
    finally:
        held.release()
        if run is not None and run.poll() is None:
            run.kill()
            run.communicate(timeout=T)


def test_seqdesk_browser_joins_an_app_started_in_the_background_which_then_stays(tmp_path):
    data = tmp_path / "data"
    program = subprocess.Popen(["sleep", "600"])
    app = background_app(data, program)
    try:
        joined = subprocess.run([sys.executable, "-m", "gui", "--browser"], cwd=ROOT, capture_output=True, text=True,
                                timeout=T, env={**clean_env(data), "SEQDESK_NO_DIALOG": "1"})
        endpoint = read_endpoint(data)
        assert endpoint is not None
        assert joined.returncode == 0, joined.stderr
        assert f"already running at {endpoint['url']}/: open it in your browser" in joined.stderr
        _end(program)  # the program it was started for has gone: joined, it is the person's and stays
        seen = time.monotonic()
        wait_until_sync(lambda: app.poll() is not None or time.monotonic() - seen > 3.0,
                        "three of the app's checks for its program (one a second)", timeout=T)
        assert app.poll() is None, "the app ended although the person joined it"
        assert _serving(data) == app.pid
    finally:
        _end(app)
        _end(program)
