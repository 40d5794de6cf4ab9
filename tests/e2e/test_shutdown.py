"""Closing the app ends what it was waiting for cleanly: pending requests become `session_disposed`,
and the data folder is free again for the next start."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

from support.app import ROOT, RunningApp, app_command, clean_env, free_port, wait_until_up
from support.waiting import wait_until_sync

DOC = {"name": "wait-for-me", "groups": [
    {"name": "wait-here", "tools": '{"tool":"cmd_run","args":{"command":"echo never"}} ;'}]}


def test_closing_the_app_disposes_pending_requests_and_frees_the_folder(tmp_path: Path):
    data_dir = tmp_path / "data"
    log = tmp_path / "app.log"
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(app_command(port), cwd=ROOT, env=clean_env(data_dir), stdout=out,
                                stderr=subprocess.STDOUT)
    app = RunningApp(f"http://127.0.0.1:{port}", data_dir, log)
    try:
        wait_until_up(proc, app.base_url, log)
        assert app.api("POST", "/api/sequences", DOC)[0] == 201
        status, body = app.api("POST", "/api/runs", {"sequence": "wait-for-me", "args": {}})
        assert status == 202
        run_id = body["run_id"]
        pending = wait_until_sync(lambda: app.api("GET", "/api/interactions?status=pending")[1],
                                  "the run's request in the app's inbox")
        iid = pending[0]["request"]["interaction_id"]
        assert (data_dir / "seqdesk.endpoint.json").exists()
    finally:
        proc.send_signal(signal.SIGINT)  # what closing the window does: a clean shutdown
        assert proc.wait(timeout=30) == 0, log.read_text(errors="replace")[-3000:]

    assert not (data_dir / "seqdesk.endpoint.json").exists()
    from gui.runtime import open_store_runtime

    async def check() -> None:
        runtime = await open_store_runtime(data_dir)  # the lock is free again
        try:
            record = await runtime.engine.interactions.get(iid)
            assert (record.status, record.result.reason) == ("cancelled", "session_disposed")
            assert record.result.cause == "app_closed"  # Ctrl+C closed the app: nobody stopped the run
            run = await runtime.engine.get_run(run_id)
            assert (run.status, run.cause) == ("stopped", "app_closed")
        finally:
            await runtime.close()

    asyncio.run(check())
