"""A command starts without copying the app, on the app's own event loop (uvloop), and is followed
there: its output, its exit code, a signal that ends it."""

from __future__ import annotations

import asyncio
import mmap
import resource
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from support.waiting import within

from gui.core.tools.registry import ToolContext
from gui.tools.cmd_run import CmdRun
from gui.tools.spawned import spawn

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page faults and pidfds of Linux")
uvloop = pytest.importorskip("uvloop")
PAGE = mmap.PAGESIZE
SIZE = 64 * 2**20


def on_uvloop(main: Callable[[], Awaitable[Any]]) -> Any:
    """`main()` on uvloop: the loop uvicorn runs the app on where it is installed."""
    async def run() -> Any:
        return await main()
    return uvloop.run(run())


def test_starting_a_command_does_not_copy_the_app():
    """A fork write-protects every private page of the app for copy-on-write: each page written after
    it faults once (16,384 here). Python's own spawn (vfork) leaves the app's pages as they were."""
    memory = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(mmap.MADV_NOHUGEPAGE)  # one fault per page, not per huge page
    for offset in range(0, SIZE, PAGE):
        memory[offset] = 1  # in memory: written once before the command starts

    async def main() -> str:
        ctx = ToolContext(run_id="r", tool_call_id="t", tool_name="cmd_run")
        return str(await CmdRun().call({"command": "echo started"}, ctx))

    assert on_uvloop(main) == "started"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for offset in range(0, SIZE, PAGE):
        memory[offset] = 2
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < SIZE // PAGE // 10, f"{faults} page faults writing {SIZE // PAGE} pages after the command started"


def test_output_exit_code_and_the_line_on_stdin_on_uvloop(tmp_path: Path):
    async def main() -> tuple[bytes, bytes, int]:
        proc = spawn(["/bin/sh", "-c", "read line; echo \"got $line\"; echo oops >&2; exit 3"],
                           cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
        proc.say(b"go\n")
        assert proc.stdout is not None and proc.stderr is not None
        out, err = await within(asyncio.gather(proc.stdout.read(), proc.stderr.read()), "the command's output to end")
        return out, err, await within(proc.wait(), "the command's exit")

    assert on_uvloop(main) == (b"got go\n", b"oops\n", 3)


def test_a_signal_that_ends_it_is_its_negative_exit_code(tmp_path: Path):
    async def main() -> tuple[int | None, int, int]:
        proc = spawn(["/bin/sh", "-c", "exec sleep 30"], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
        before = proc.returncode
        proc.kill()
        code = await within(proc.wait(), "the killed command to end")
        return before, code, await within(proc.wait(), "the exit code asked again")  # asked again: the same answer

    assert on_uvloop(main) == (None, -signal.SIGKILL, -signal.SIGKILL)


def test_a_command_that_cannot_start_says_so(tmp_path: Path):
    async def main() -> None:
        spawn([str(tmp_path / "missing")], cwd=tmp_path, env={})

    with pytest.raises(OSError):
        on_uvloop(main)
