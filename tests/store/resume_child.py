"""The app the kill tests kill: real stores on a data folder, real commands, approvals answered here.

    python resume_child.py <folder> <side file> first
        starts a run of three groups, approves group 1 (it appends a line to <side file>), and prints
        `waiting <run id>` once group 2 waits for its approval; then hangs until killed.
    python resume_child.py <folder> <side file> resume <run id>
        opens the folder as the app does at start-up, resumes the run, approves what it asks, and
        prints `done <status> <kept groups> <groups that asked for approval>`.
    python resume_child.py <folder> <marker> orphan [unarmed]
        starts `sleep 30; touch <marker>`, approves it and prints `running <run id>` once the command
        is recorded; then hangs until killed. `unarmed`: without the parent-death signal (as on a
        system that has none), so only the next start-up can end the command.
    python resume_child.py <folder> <marker> restart <run id>
        opens the folder as the app does at start-up and prints the tool's recorded error.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.events import Event
from gui.runtime import open_runtime


def say(*parts: object) -> None:
    os.write(1, (" ".join(map(str, parts)) + "\n").encode())  # one write: never half a line


def step(command: str) -> str:
    return json.dumps({"tool": "cmd_run", "args": {"command": command}}) + " ;"


def trio(side: Path) -> dict:
    return {"name": "trio", "groups": [{"name": "one", "tools": step(f"echo x >> '{side}'")},
                                       {"name": "two", "tools": step("echo two")},
                                       {"name": "three", "tools": step("echo three")}]}


def approve_all(engine: Engine, on_waiting=None) -> list[str]:
    """Approve each request as it comes (or those `on_waiting` accepts); the groups that asked."""
    asked: list[str] = []

    def on_event(event: Event) -> None:
        if event.type == "tool.waiting":
            iid = event.data["interaction_id"]
            if on_waiting is None or on_waiting(event):
                asked.append(event.data["group_name"])
                asyncio.get_running_loop().create_task(engine.respond(iid, ApprovalResponse(decision="approved")))

    engine.subscribe(on_event)
    return asked


async def first(folder: Path, side: Path) -> None:
    runtime = await open_runtime(folder)
    engine = runtime.engine
    await engine.create(trio(side))
    waiting = asyncio.Event()

    def on_waiting(event: Event) -> bool:
        if event.data["group"] == 0:
            return True
        waiting.set()
        return False

    approve_all(engine, on_waiting)
    run = await engine.start("trio")
    await waiting.wait()
    say("waiting", run.run_id)
    await asyncio.Event().wait()


async def resume(folder: Path, run_id: str) -> None:
    runtime = await open_runtime(folder)
    engine = runtime.engine
    asked = approve_all(engine)
    record = await engine.call_resume(run_id)
    kept = ",".join(g.name for g in record.groups if g.reused_from) or "-"
    say("done", record.status, kept, ",".join(asked) or "-")
    await runtime.close()


async def orphan(folder: Path, marker: Path) -> None:
    runtime = await open_runtime(folder)
    engine = runtime.engine
    await engine.create({"name": "nap", "groups": [{"name": "nap-g", "tools": step(f"sleep 30; touch '{marker}'")}]})
    approve_all(engine)
    run = await engine.start("nap")
    while True:  # the command's process is on disk before the command may start
        record = await engine.runs.get(run.run_id)
        if record is not None and record.groups[0].tools[0].process is not None:
            break
        await asyncio.sleep(0.01)  # polling the store: it has no event for this
    say("running", run.run_id, record.groups[0].tools[0].process.pid)
    await asyncio.Event().wait()


async def restart(folder: Path, run_id: str) -> None:
    runtime = await open_runtime(folder)
    record = await runtime.engine.get_run(run_id)
    say("recorded", record.status, "|", record.groups[0].tools[0].error)
    await runtime.close()


if __name__ == "__main__":
    folder, path, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    if mode == "first":
        asyncio.run(first(folder, path))
    elif mode == "resume":
        asyncio.run(resume(folder, sys.argv[4]))
    elif mode == "orphan":
        if sys.argv[4:] == ["unarmed"]:
            from gui.tools import processes

            processes._PRCTL = None
        asyncio.run(orphan(folder, path))
    else:
        asyncio.run(restart(folder, sys.argv[4]))
