"""Python children forked from a server that has already imported what they import, held as Popen holds one.

`python child.py args` spends 1 to 4 s of a busy 2-core machine importing the app (pydantic models above
all) before its first line; tests that start a child 50 times over spend most of their time there.
`start` forks the child instead from multiprocessing's fork server, a process started once (per test
process) that imported the `preload` modules and then started no thread: the fork copies a process in
which nothing runs but the main thread, the one case where fork is safe.

The child is a real OS process (its own pid, killed by a real SIGKILL, its exit code read by its parent,
the fork server); its stdin, stdout and stderr are pipes that this process holds; it runs the script as
`python script args` would: `__main__`, sys.argv, the script's folder first on sys.path, the working
folder and environment given. At the end it does what the interpreter does on exit: it waits for the
threads that are not daemons, runs the exit functions, flushes, and exits with the script's code (1 and
the traceback on stderr for an exception).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import runpy
import subprocess
import sys
import threading
import traceback
from functools import cache
from multiprocessing import reduction
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import IO, Any

_started_with: list[tuple[str, ...]] = []  # the preload of this process's one fork server, once started


@cache
def _server(preload: tuple[str, ...]) -> ForkServerContext:
    """The fork server's context. A process has one fork server and its preload is fixed when it starts:
    asking for another preload afterwards is refused rather than silently ignored."""
    if _started_with and _started_with[0] != preload:
        raise RuntimeError(f"this process's fork server preloads {_started_with[0]}; it cannot also preload {preload}")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))  # the first call starts the server: one preload per process
    _started_with.append(preload)
    return context


class _Fd:
    """A file descriptor of this process, given to the child when the process object is sent to the server."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return _received, (reduction.DupFd(self.fd),)


def _received(dup: Any) -> int:
    return dup.detach()


def _run(argv: list[str], cwd: str, env: dict[str, str], fds: tuple[int, int, int]) -> None:
    """In the child: the pipes become fds 0, 1 and 2, then the script runs as `python argv...` runs it."""
    sys.stdin.close()  # multiprocessing's /dev/null
    for fd, std in zip(fds, (0, 1, 2), strict=True):
        if fd != std:
            os.dup2(fd, std)
            os.close(fd)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)  # noqa: SIM115 (the interpreter's streams live to the end)
    sys.stdout = sys.__stdout__ = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)  # noqa: SIM115
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(argv)
    sys.path.insert(0, str(Path(argv[0]).resolve().parent))
    ending: SystemExit | None = None
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exit_:
        ending = exit_
    except BaseException:
        traceback.print_exc()
        ending = SystemExit(1)
    threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's exit: wait for non-daemon threads
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    if ending is not None:
        raise ending


class Forked:
    """A forked child with Popen's face: pid, text pipes stdin/stdout/stderr, poll, wait, kill, returncode."""

    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str], preload: tuple[str, ...]) -> None:
        (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
        self.args = argv
        self._process = _server(preload).Process(
            target=_run, args=(argv, str(cwd), env, (_Fd(in_r), _Fd(out_w), _Fd(err_w))), name=Path(argv[0]).name)
        try:
            self._process.start()
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        assert self._process.pid is not None
        self.pid: int = self._process.pid
        self.stdin = open(in_w, "w")  # noqa: SIM115 (closed by the caller, as Popen's)
        self.stdout = open(out_r)  # noqa: SIM115
        self.stderr = open(err_r)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        self.returncode = self._process.exitcode
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self.poll() is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        """SIGKILL (nothing if it has ended and been waited for already)."""
        self._process.kill()
