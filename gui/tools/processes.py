"""Commands that never outlive the app: a parent-death signal, a start gate, and start-up reaping.

A command runs under a small `sh` wrapper, the leader of its own process group:

- on Linux the wrapper gets a parent-death signal (`prctl(PR_SET_PDEATHSIG, SIGHUP)`, set before
  it execs): when the app dies, even by SIGKILL, the wrapper kills its whole group. util-linux's
  `setpriv --pdeathsig HUP` sets it where there is one (`death_prefix`); otherwise a `preexec_fn`
  does (`parent_death_signal`), which costs a full fork of the app: ~135 ms at 270 MB on a busy
  2-core machine, where a start without one takes Python's vfork path (< 1 ms);
- it waits for a `go` line on its stdin before it starts the command, and the app sends it only once
  the process is recorded on disk (`ToolContext.record_process`): a command never acts unrecorded,
  and an app that dies before `go` leaves nothing running (the wrapper reads end-of-file and exits);
- at the next start-up, every recorded command still alive is killed (`OsProcesses`, the core's
  `ProcessControl` port): the fallback on systems without a parent-death signal.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the type alone: checking a file (`seqdesk check`) loads no run records
    from gui.core.runs import ProcessInfo

# $1 is the command. HUP is the parent-death signal: the app is gone, so end everything at once.
# A command ended by a signal ends the wrapper by the same signal, so the app reads it as such.
WRAPPER = """trap 'kill -KILL 0' HUP
read -r go || exit 125
[ "$go" = go ] || exit 125
/bin/sh -c "$1" </dev/null &
wait $!
status=$?
if [ "$status" -gt 128 ] && [ "$status" -lt 160 ]; then trap - HUP; kill -$((status - 128)) $$; fi
exit $status
"""
GO = b"go\n"
_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # the C library this process already has (dlopen of no file): `ctypes.util.find_library`
        # would run `ldconfig -p` at every start of the app and of `seqdesk check` to find its name
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    return getattr(libc, "prctl", None)


_PRCTL = _prctl()  # looked up once, in the app: the child only calls it
_SETPRIV = shutil.which("setpriv") if _PRCTL is not None else None


def death_prefix() -> list[str]:
    """The start of a command line that arms the parent-death signal before it execs the rest;
    empty where there is no `setpriv` (then `parent_death_signal`). An app that dies before the
    signal is armed leaves nothing running all the same: the wrapper waits for its `go`."""
    return [_SETPRIV, "--pdeathsig", "HUP"] if _SETPRIV is not None and _PRCTL is not None else []


def parent_death_signal() -> Callable[[], None] | None:
    """What the child runs before exec (`preexec_fn`) so that the app's death reaches it; None
    where there is no such signal (the start-up reaping covers those systems)."""
    prctl = _PRCTL
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGHUP), 0, 0, 0)
        if os.getppid() != parent:  # the app died before the signal was armed
            os._exit(125)

    return arm


def _stat(pid: int | str) -> list[str] | None:
    """/proc/<pid>/stat from its third field on (state, ppid, pgrp, …); None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def start_time(pid: int) -> float | None:
    """When the process started, in clock ticks since boot (Linux); None where that is unknown."""
    fields = _stat(pid)
    try:
        return float(fields[19]) if fields else None  # field 22 of the line
    except (IndexError, ValueError):
        return None


def _group_lives(pgid: int) -> bool:
    """Whether a process of that group still runs (a zombie has ended: it only waits to be reaped)."""
    if not os.path.isdir("/proc"):
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError, OSError):
            return False
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(entry)
            if fields and len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                return True
    return False


class OsProcesses:
    """The core's `ProcessControl` on this machine's processes: a recorded command's group leader
    is the wrapper (pid = process group id)."""

    def alive(self, process: ProcessInfo) -> bool:
        if not hasattr(os, "killpg"):
            return False
        if process.started is not None and os.path.isdir(f"/proc/{process.pid}") \
                and start_time(process.pid) != process.started:
            return False  # that pid is another process now, so the group id is not ours either
        return _group_lives(process.pid)  # the wrapper may be gone while what it started runs on

    def kill(self, process: ProcessInfo) -> None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            else:
                os.kill(process.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError, OSError):
            pass
