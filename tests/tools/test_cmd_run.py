"""cmd_run against real processes: output, failures, time limits, folders, and stopping a step."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from support.waiting import wait_until, within

from gui.core.errors import ToolArgumentError, ToolError
from gui.tools import cmd_run
from gui.tools.cmd_run import CmdRun

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the commands are POSIX shell")


def pid_in(path: Path) -> int | None:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    return int(text) if text.endswith("\n") else None  # written whole, newline last


def is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def run(ctx, **args):
    return await CmdRun().call(args, ctx)


async def test_result_is_stdout_without_the_trailing_newline(ctx):
    assert await run(ctx, command="printf 'hello\\nworld\\n'") == "hello\nworld"


async def test_undecodable_output_is_replaced_not_an_error(ctx):
    assert await run(ctx, command="printf 'a\\377b'") == "a\ufffdb"


async def test_huge_output_is_cut_and_says_so(ctx, monkeypatch):
    monkeypatch.setattr(cmd_run, "MAX_OUTPUT_BYTES", 1000)
    result = await run(ctx, command="head -c 5000 /dev/zero | tr '\\0' x")
    assert result.startswith("x" * 1000)
    assert result.endswith("[output cut: 4000 more bytes were dropped]")


async def test_non_zero_exit_reports_the_code_and_stderr(ctx):
    with pytest.raises(ToolError) as err:
        await run(ctx, command="echo partial; echo 'disk is full' >&2; exit 3")
    assert "exited with code 3" in str(err.value)
    assert "disk is full" in str(err.value)


async def test_long_stderr_is_trimmed_to_its_end(ctx):
    command = "head -c 100000 /dev/zero | tr '\\0' x >&2; echo THE-END >&2; exit 1"
    with pytest.raises(ToolError) as err:
        await run(ctx, command=command)
    assert len(str(err.value)) < 3000
    assert str(err.value).endswith("THE-END")


async def test_failure_without_stderr_says_so(ctx):
    with pytest.raises(ToolError, match=r"exited with code 1 \(it printed no error\)"):
        await run(ctx, command="false")


async def test_timeout_stops_the_command_and_says_after_how_long(ctx, tmp_path):
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^command timed out after 0.2s$"):
        await run(ctx, command=f"echo $$ > {tmp_path}/pid; exec sleep 30", timeout=0.2)
    assert time.monotonic() - started < 10
    pid = pid_in(tmp_path / "pid")
    assert pid is not None
    await wait_until(lambda: is_gone(pid))


async def test_runs_in_the_given_folder(ctx, tmp_path):
    assert await run(ctx, command="pwd -P", cwd=str(tmp_path)) == str(tmp_path.resolve())


async def test_runs_in_the_process_folder_by_default(ctx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert await run(ctx, command="pwd -P") == str(tmp_path.resolve())
    assert await run(ctx, command="pwd -P", cwd="") == str(tmp_path.resolve())


async def test_missing_folder_is_an_error_and_nothing_runs(ctx, tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(ToolError, match="does not exist"):
        await run(ctx, command=f"touch {marker}", cwd=str(tmp_path / "nope"))
    assert not marker.exists()


async def test_cancelling_kills_the_whole_process_group(ctx, tmp_path):
    command = f"sleep 30 & echo $! > {tmp_path}/child; echo $$ > {tmp_path}/shell; wait"
    task = asyncio.create_task(run(ctx, command=command))
    await wait_until(lambda: pid_in(tmp_path / "shell") is not None)
    child, shell = pid_in(tmp_path / "child"), pid_in(tmp_path / "shell")
    assert child is not None and shell is not None and not is_gone(child)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled command to end")

    # the shell and its child run under the wrapper (our child, reaped when the call returns): both
    # are reaped by init once killed, a moment later (some container inits poll)
    await wait_until(lambda: is_gone(shell) and is_gone(child), timeout=15)


async def test_cancelling_kills_children_that_ignore_sigterm(ctx, tmp_path):
    command = f"trap '' TERM; sleep 30 & echo $! > {tmp_path}/child; wait"
    task = asyncio.create_task(run(ctx, command=command))
    await wait_until(lambda: pid_in(tmp_path / "child") is not None)
    child = pid_in(tmp_path / "child")
    assert child is not None

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled command to end")
    await wait_until(lambda: is_gone(child), timeout=15)


def test_approval_shows_the_command_the_absolute_folder_and_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    approval = CmdRun().shell_approval({"command": "make all", "cwd": "sub"})
    assert approval.title == "Run a command"
    assert approval.command == "make all"
    assert approval.cwd == str((tmp_path / "sub").resolve())
    assert approval.reason == "the sequence step asks to run this command"
    assert approval.operation == "exec"
    assert CmdRun().shell_approval({"command": "ls"}).cwd == str(Path.cwd())


def test_tool_needs_exec_approval_and_may_run_in_parallel():
    tool = CmdRun()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("cmd_run", "exec", True)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "command"),
        ({"command": ""}, "command"),
        ({"command": "   "}, "command"),
        ({"command": "ls", "timeout": 0}, "timeout"),
        ({"command": "ls", "timeout": -1}, "timeout"),
        ({"command": "ls", "cwd": 5}, "cwd"),
        ({"command": "ls", "comand": "ls"}, "comand"),
    ],
)
async def test_bad_arguments_name_the_field(ctx, args, field):
    with pytest.raises(ToolArgumentError) as err:
        CmdRun().validate_args(args)
    assert field in [path for path, _ in err.value.problems]
    with pytest.raises(ToolArgumentError):
        await CmdRun().call(args, ctx)
