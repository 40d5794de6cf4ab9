"""`cmd_run`: run a shell command. It is the riskiest built-in, so it always asks first ("exec").

Each command gets its own process group (a new session) so that stopping a run, a group's timeout
or the step's own time limit ends everything the command started (`a | b`, `x &`), not only the
shell: a stopped step must not keep working behind the person's back. Nor may it outlive the app:
the command is recorded before it starts, and dies with the app (`gui.tools.processes`). Output is
read in bounded chunks so that a chatty command cannot fill the memory or the run record.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from gui.core.errors import ToolError
from gui.core.sequences import SlotType
from gui.core.tools import ModelTool, ShellApproval, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, excerpt, invalid, parse_args
from gui.tools.processes import GO, WRAPPER, death_prefix, parent_death_signal, start_time
from gui.tools.spawned import Spawned, spawn

ASKS_TO_RUN = N_("the sequence step asks to run this command")  # N_: the inbox shows it translated
MAX_OUTPUT_BYTES = 10 * 1024 * 1024
TERM_GRACE_SECONDS = 1.0
_CHUNK = 64 * 1024
Started = asyncio.subprocess.Process | Spawned  # asyncio's where there is no POSIX sh


class CmdRunArgs(ToolArgs):
    """Run a command in a terminal-like shell."""

    model_config = ConfigDict(title=N_("Run a command"))

    command: str = Field(
        title=N_("Command"),
        description=N_("The command to run, written as you would type it in a terminal, for example: ls -l"),
    )
    cwd: str | None = Field(
        default=None,
        title=N_("Folder"),
        description=N_("The folder the command runs in. Leave empty to use the folder SeqDesk was started in."),
    )
    timeout: float | None = Field(
        default=None,
        gt=0,
        title=N_("Time limit (seconds)"),
        description=N_("Stop the command if it is still running after this many seconds. Leave empty for no limit."),
    )

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise invalid(N_("the command is empty"))
        return value

    @field_validator("cwd")
    @classmethod
    def _blank_is_default(cls, value: str | None) -> str | None:
        return value if value and value.strip() else None


def _folder(cwd: str | None) -> Path:
    return Path(cwd).expanduser().resolve() if cwd else Path.cwd()


class CmdRun(ModelTool):
    name = "cmd_run"
    description = N_(
        "Runs a command on this computer, as if typed in a terminal, and gives back what it printed. "
        "It asks you before each command, unless a rule you made allows it."
    )
    concurrency_safe = True  # each command is its own process
    runs_on_hosts = True  # a team's worker carries it
    shell_text_args = frozenset({"command"})  # an input inside the command is one quoted word
    approval = "exec"
    Args = CmdRunArgs

    def shell_approval(self, args: dict[str, Any]) -> ShellApproval:
        """What the approval shows, read from the arguments as the runner validated them before it asks
        (`validate_args`), as every tool's approval reads them: not parsed again."""
        return ShellApproval(
            title="Run a command",
            command=str(args.get("command", "")),
            cwd=str(_folder(args.get("cwd"))),
            reason=ASKS_TO_RUN,
            operation="exec",
        )

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.STRING

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        a = parse_args(self, CmdRunArgs, args)
        cwd = _folder(a.cwd)
        if not cwd.is_dir():
            raise ToolError(N_("the folder {folder} does not exist").format(folder=cwd))
        proc = await _start(a.command, cwd, ctx.tool_call_id)
        try:
            await _go(proc, ctx)
            async with asyncio.timeout(a.timeout):
                out, err = await asyncio.gather(_read(proc.stdout), _read(proc.stderr))
                code = await proc.wait()
        except TimeoutError:
            await _stop(proc)
            raise ToolError(N_("command timed out after {seconds}s").format(seconds=f"{a.timeout:g}")) from None
        except BaseException:  # cancelled: the step was stopped, end the whole group, then re-raise
            await _stop(proc)
            raise
        if code != 0:
            raise ToolError(_failure(code, err))
        return out.rstrip("\r\n")


async def _start(command: str, cwd: Path, step_id: str) -> Started:
    """The command under its wrapper, held until `_go` (a plain shell where there is no POSIX sh).
    SEQDESK_STEP_ID in its environment names its step, the same in every attempt (a command called
    again after its app or worker stopped can see that it did its work already). Started by
    `gui.tools.spawned`, which does not copy the app as the loop's own subprocesses may."""
    env = {**os.environ, "SEQDESK_STEP_ID": step_id}
    try:
        if os.name != "posix":
            return await asyncio.create_subprocess_shell(
                command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=cwd, start_new_session=True, env=env)
        armed = death_prefix()  # no preexec_fn where it can: that would fork the whole app
        return spawn([*armed, "/bin/sh", "-c", WRAPPER, "seqdesk", command], cwd=cwd, env=env,
                     preexec_fn=None if armed else parent_death_signal())
    except OSError as exc:
        raise ToolError(N_("could not start the command: {reason}").format(reason=exc)) from None


async def _go(proc: Started, ctx: ToolContext) -> None:
    """Record the process (on disk when this returns), then let the command start."""
    try:
        if ctx.record_process is not None:
            await ctx.record_process(proc.pid, start_time(proc.pid))
        if isinstance(proc, Spawned):
            proc.say(GO)
    except (ConnectionError, OSError):
        pass  # the wrapper is gone already: its exit code says what happened
    except BaseException:
        await _stop(proc)  # never left waiting for a go that will not come
        raise


async def _read(stream: asyncio.StreamReader | None) -> str:
    """The stream as text, at most MAX_OUTPUT_BYTES kept; the rest is read and dropped."""
    if stream is None:
        return ""
    kept = bytearray()
    dropped = 0
    while chunk := await stream.read(_CHUNK):
        room = MAX_OUTPUT_BYTES - len(kept)
        kept += chunk[: max(room, 0)]
        dropped += max(len(chunk) - max(room, 0), 0)
    text = kept.decode("utf-8", errors="replace")
    if dropped:
        text += f"\n[output cut: {dropped} more bytes were dropped]\n"
    return text


def _failure(code: int, stderr: str) -> str:
    detail = excerpt(stderr, keep_end=True)
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        if detail:
            return N_("the command was stopped by signal {signal}: {detail}").format(signal=name, detail=detail)
        return N_("the command was stopped by signal {signal} (it printed no error)").format(signal=name)
    if detail:
        return N_("the command exited with code {code}: {detail}").format(code=code, detail=detail)
    return N_("the command exited with code {code} (it printed no error)").format(code=code)


def _signal_group(proc: Started, sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, sig)  # the pid is the group id: start_new_session made it a leader
        elif proc.returncode is None:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already


async def _stop(proc: Started) -> None:
    """SIGTERM to the group, a short grace for the shell, then SIGKILL to whatever is left.

    The SIGKILL is in `finally` so that a second cancellation during the grace cannot skip it.
    """
    try:
        _signal_group(proc, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), TERM_GRACE_SECONDS)
        except TimeoutError:
            pass
    finally:
        _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
    await proc.wait()
