"""With the app open on a data folder, the terminal's `seqdesk run` and `list` go through the app.

The data folder belongs to one process (the app); a second one must not open the TinyDB files.
Instead the CLI finds the app's endpoint and sends the run there: it shows up in the app's history,
and its approval waits in the app's inbox, where (here) the HTTP API answers it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from support.app import ROOT, RunningApp, clean_env
from support.waiting import wait_until_sync

from gui.core.sequences.help import EXAMPLE


def cli(app: RunningApp, *args: str, timeout: float = 60) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gui", *args], cwd=ROOT, env=clean_env(app.data_dir),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)


def test_list_and_run_by_name_go_through_the_open_app(seqdesk_app: RunningApp):
    status, _ = seqdesk_app.api("POST", "/api/sequences", json.loads(EXAMPLE))
    assert status in (200, 201)
    listed = cli(seqdesk_app, "list")
    out, err = listed.communicate(timeout=60)
    assert listed.returncode == 0, err
    assert "check-three-nodes  (host: string)" in out

    run = cli(seqdesk_app, "run", "check-three-nodes", "--args", '{"host": "via-app"}', "--json")
    pending = wait_until_sync(lambda: seqdesk_app.api("GET", "/api/interactions?status=pending")[1],
                              "the CLI's run to ask for approval in the app (its inbox, polled through its API)")
    for item in pending:
        iid = item["request"]["interaction_id"]
        assert seqdesk_app.api("POST", f"/api/interactions/{iid}/respond",
                               {"kind": "approval", "decision": "approved"})[0] == 200

    def approved_to_the_end() -> bool:
        """Approves what else the run asks for; whether the CLI has ended."""
        _, more = seqdesk_app.api("GET", "/api/interactions?status=pending")
        for item in more:
            iid = item["request"]["interaction_id"]
            seqdesk_app.api("POST", f"/api/interactions/{iid}/respond", {"kind": "approval", "decision": "approved"})
        return run.poll() is not None

    wait_until_sync(approved_to_the_end, "the CLI's run to end, each of its requests approved in the app")
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    record = json.loads(out)
    assert record["status"] == "succeeded" and record["outputs"]["detail"] == "checked via-app"
    _, runs = seqdesk_app.api("GET", "/api/runs")
    assert record["run_id"] in [r["run_id"] for r in runs]
