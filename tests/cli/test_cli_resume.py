"""`seqdesk run --resume RUN_ID`: the next attempt keeps what succeeded, as a script sees it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from support.cli import seqdesk

from gui.store.open import open_stores


def save_sequence(folder: Path, side: Path, flag: Path) -> None:
    from gui.core.door.catalog import Catalog
    from gui.core.events import EventBus
    from gui.tools import default_registry

    def step(command: str) -> str:
        return json.dumps({"tool": "cmd_run", "args": {"command": command}}) + " ;"

    doc = {"name": "flaky", "groups": [{"name": "write-once", "tools": step(f"echo x >> '{side}'")},
                                       {"name": "needs-flag", "tools": step(f"test -f '{flag}'")}]}

    async def go() -> None:
        stores = await open_stores(folder)
        try:
            await Catalog(stores.sequences, default_registry(), EventBus()).create(doc)
        finally:
            stores.close()

    asyncio.run(go())


def test_resume_runs_only_what_did_not_succeed_and_refuses_a_second_time(tmp_path, data):
    side, flag = tmp_path / "side.txt", tmp_path / "flag"
    save_sequence(data, side, flag)
    first = seqdesk("run", "flaky", "--yes", "--json", data=data)
    assert first.returncode == 1, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    flag.touch()
    second = seqdesk("run", "--resume", run_id, "--yes", "--json", data=data)
    assert second.returncode == 0, second.stderr
    body = json.loads(second.stdout)
    assert body["status"] == "succeeded" and body["resumed_from"] == run_id and body["attempt"] == 2
    assert body["groups"][0]["kept_from"] == run_id and "kept_from" not in body["groups"][1]
    kept = "kept what had succeeded: the group write-once"
    assert f"resumed run {run_id} as run {body['run_id']} (attempt 2); {kept}" in second.stderr
    assert side.read_text() == "x\n"  # the first group's command ran once, in the first attempt
    again = seqdesk("run", "--resume", run_id, data=data)
    assert again.returncode == 2 and f"resumed already, as run {body['run_id']}" in again.stderr
    unknown = seqdesk("run", "--resume", "nope", data=data)
    assert unknown.returncode == 2 and "there is no run nope" in unknown.stderr
    both = seqdesk("run", "flaky", "--resume", run_id, data=data)
    assert both.returncode == 2 and "--resume takes only the run's id" in both.stderr
