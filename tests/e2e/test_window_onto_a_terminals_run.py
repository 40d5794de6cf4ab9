"""A window opened onto the app a terminal's `seqdesk run` started (which served the HTTP API alone until
then, `gui.background_app`) shows that run, and shows it live: its end arrives without a reload."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import httpx
from support.app import ROOT, clean_env
from support.waiting import wait_until_sync

from gui.second_launch import read_endpoint

T = 120.0


def test_a_window_opened_onto_the_app_a_terminals_run_started_shows_the_run_live(tmp_path, page, screenshot):
    from playwright.sync_api import expect

    data, go = tmp_path / "data", tmp_path / "go"
    data.mkdir()
    waits = f"while [ ! -e '{go}' ]; do sleep 0.2; done; echo went"
    sequence = tmp_path / "wait-for-go.json"
    sequence.write_text(json.dumps({"name": "wait-for-go", "groups": [{"name": "wait", "in": {}, "out": {}, "tools":
                        json.dumps({"tool": "cmd_run", "args": {"command": waits}}) + " ;"}]}))
    run = subprocess.Popen([sys.executable, "-m", "gui", "run", str(sequence), "--yes"], cwd=ROOT,
                           env={**clean_env(data), "SEQDESK_NO_DIALOG": "1"}, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        endpoint = wait_until_sync(lambda: read_endpoint(data), "the run's app to serve the folder", timeout=T)
        url = str(endpoint["url"])

        def running() -> str | None:
            runs = httpx.get(f"{url}/api/runs", timeout=T).json()
            return runs[0]["run_id"] if runs and runs[0]["status"] == "running" else None

        run_id = wait_until_sync(running, "the terminal's run to be running in the app", timeout=T)
        page.goto(f"{url}/run/{run_id}", timeout=T * 1000)  # a window onto it: its pages open now
        # connected (not `settled`: the running run's spinner never stops moving)
        page.wait_for_function("window.socket && window.socket.connected", timeout=T * 1000)
        expect(page.get_by_text("Running", exact=True).first).to_be_visible(timeout=T * 1000)
        assert page.get_by_text("Succeeded", exact=True).count() == 0
        go.touch()  # the step ends: the page is told, not reloaded
        expect(page.get_by_text("Succeeded", exact=True).first).to_be_visible(timeout=T * 1000)
        expect(page.get_by_text("Running", exact=True)).to_have_count(0, timeout=T * 1000)
        screenshot(page, "window-onto-a-terminals-run.png")
        out, err = run.communicate(timeout=T)
        assert run.returncode == 0, err
        assert f"run {run_id} succeeded" in err
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate(timeout=T)
        endpoint = read_endpoint(data)
        if endpoint is not None:  # a page was opened on it, but nobody asked it to stay: end it
            os.kill(int(endpoint["pid"]), signal.SIGTERM)
