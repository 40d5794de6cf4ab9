"""The command wrapper: a command starts only after its process is recorded, and never without `go`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from support.waiting import wait_until, within

from gui.core.runs.records import ProcessInfo
from gui.core.tools.registry import ToolContext
from gui.tools.cmd_run import CmdRun
from gui.tools.processes import WRAPPER, OsProcesses, start_time

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def state(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rfind(")") + 2:].split()[0]


def children(pid: int) -> str:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().strip()


async def test_the_command_waits_until_its_process_is_recorded(tmp_path):
    marker = tmp_path / "ran"
    seen: dict[str, object] = {}

    async def record_process(pid: int, started: float | None) -> None:
        await wait_until(lambda: state(pid) == "S", "the wrapper to block on its `go` line (sleeping, with no child)")
        seen.update(pid=pid, started=started, children=children(pid), ran=marker.exists())

    ctx = ToolContext(run_id="r", tool_call_id="t", tool_name="cmd_run", record_process=record_process)
    assert await CmdRun().call({"command": f"touch '{marker}' && echo done"}, ctx) == "done"
    assert seen["children"] == "" and seen["ran"] is False and marker.exists()
    assert isinstance(seen["started"], float)


async def test_a_wrapper_that_never_gets_go_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    proc = await asyncio.create_subprocess_exec("/bin/sh", "-c", WRAPPER, "seqdesk", f"touch '{marker}'",
                                                stdin=asyncio.subprocess.PIPE, start_new_session=True)
    assert proc.stdin is not None
    proc.stdin.close()  # the app died before it could say go
    assert await within(proc.wait(), "the wrapper to end") == 125
    assert not marker.exists()


async def test_os_processes_tell_a_recorded_process_from_a_later_one_with_its_pid():
    proc = await asyncio.create_subprocess_exec("sleep", "30", start_new_session=True)
    try:
        control = OsProcesses()
        started = start_time(proc.pid)
        assert control.alive(ProcessInfo(pid=proc.pid, started=started))
        assert not control.alive(ProcessInfo(pid=proc.pid, started=(started or 0) + 1))
        control.kill(ProcessInfo(pid=proc.pid, started=started))
        assert await within(proc.wait(), "the killed process to end") == -9
        assert not control.alive(ProcessInfo(pid=proc.pid, started=started))
    finally:
        if proc.returncode is None:
            proc.kill()
            await within(proc.wait(), "the killed sleep to end")


async def test_a_command_that_ended_but_was_not_reaped_yet_is_not_alive():
    import subprocess

    proc = subprocess.Popen(["true"], start_new_session=True)  # not waited for: it stays a zombie
    try:
        started = start_time(proc.pid)
        await wait_until(lambda: state(proc.pid) == "Z", "the ended command to be a zombie")
        assert not OsProcesses().alive(ProcessInfo(pid=proc.pid, started=started))
    finally:
        proc.wait(30)
