"""A command started without copying the app: Python's own spawn, whatever the event loop.

The app's loop is uvloop (uvicorn takes it where it is installed), and uvloop starts a subprocess
with libuv, which forks: the kernel copies the page tables of the whole app on the loop's thread,
and the parent's next writes fault on every page. Measured (issue 24) on the 2-core machine: ~45 ms
at 600 MB, every other page and answer waiting behind it, between a person's approval and their
command. `subprocess.Popen` takes CPython's vfork path when there is no `preexec_fn` (< 1 ms at any
size), so a command is started with it and followed on the loop: its output through
`connect_read_pipe`, its end through a pidfd (Linux), else by a thread that waits for it.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


class Spawned:
    """A started command: its pid, its output as streams, its end (`wait`, `returncode`), and the
    one line its stdin takes (`say`)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdout: asyncio.StreamReader | None = asyncio.StreamReader()
        self.stderr: asyncio.StreamReader | None = asyncio.StreamReader()
        self._ended: asyncio.Future[int] | None = None
        # The pipes are handed to the loop in a task of their own: starting a command never lets the
        # loop run other work first (a page redrawn between an approval and its command's start).
        self._reading = asyncio.get_running_loop().create_task(self._read_pipes())

    async def _read_pipes(self) -> None:
        loop = asyncio.get_running_loop()
        for pipe, reader in ((self._popen.stdout, self.stdout), (self._popen.stderr, self.stderr)):
            if pipe is None or reader is None:
                continue
            try:
                await loop.connect_read_pipe(functools.partial(asyncio.StreamReaderProtocol, reader), pipe)
            except OSError as exc:
                reader.set_exception(exc)

    @property
    def returncode(self) -> int | None:
        """The exit code once it ended and was reaped (-N when signal N ended it); else None."""
        return self._popen.returncode

    def say(self, line: bytes) -> None:
        """Write `line` to its stdin and close it (a line fits any pipe's buffer: this never blocks).
        OSError when it is gone already."""
        stdin = self._popen.stdin
        if stdin is None:
            return
        try:
            stdin.write(line)
            stdin.flush()
        finally:
            try:
                stdin.close()
            except OSError:
                pass  # it left with the data unread: the exit code says what happened

    def kill(self) -> None:
        if self.returncode is None:
            self._popen.send_signal(getattr(signal, "SIGKILL", signal.SIGTERM))

    async def wait(self) -> int:
        """Its exit code, once it ended (reaped here)."""
        if self._ended is None:
            self._ended = self._follow()
        return await asyncio.shield(self._ended)

    def _follow(self) -> asyncio.Future[int]:
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[int] = loop.create_future()
        code = self._popen.poll()
        if code is not None:
            ended.set_result(code)
            return ended
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # no pidfd here: a thread waits for it
            waiting = asyncio.ensure_future(asyncio.to_thread(self._popen.wait))
            waiting.add_done_callback(lambda done: _settle(ended, done))
            return ended

        def readable() -> None:  # it ended: reap it now
            code = self._popen.poll()
            if code is None:
                return  # (spurious) the pidfd tells again when it ends
            loop.remove_reader(pidfd)
            os.close(pidfd)
            if not ended.done():
                ended.set_result(code)

        loop.add_reader(pidfd, readable)
        return ended


def _settle(ended: asyncio.Future[int], done: asyncio.Future[int]) -> None:
    if ended.done():
        return
    if done.cancelled() or done.exception() is not None:
        ended.set_exception(done.exception() or asyncio.CancelledError())
    else:
        ended.set_result(done.result())


def spawn(args: Sequence[str], *, cwd: Path, env: Mapping[str, str],
          preexec_fn: Callable[[], None] | None = None) -> Spawned:
    """Start `args` in a session of its own (the leader of its process group), its stdin a pipe for
    `Spawned.say`, its stdout and stderr read on the running loop. OSError when it cannot start."""
    popen = subprocess.Popen(list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=cwd, env=dict(env), start_new_session=True, preexec_fn=preexec_fn)
    return Spawned(popen)


__all__ = ["Spawned", "spawn"]
