"""The DevTools pipe to the app window's browser: `--remote-debugging-pipe` makes Chromium read
commands on its file descriptor 3 and answer on 4. Only this process holds the other ends, so
unlike `--remote-debugging-port` no other program or web page can drive the browser.

It is used to bring the window to the front when SeqDesk is started again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
from typing import Any

log = logging.getLogger(__name__)
TIMEOUT = 5.0


class DevToolsPipe:
    def __init__(self, write_fd: int, read_fd: int) -> None:
        self.write_fd = write_fd
        self.read_fd = read_fd
        self._ids = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._buffer = b""

    def start(self) -> None:
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=2**24)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(self.read_fd, "rb", 0))
        while True:
            try:
                chunk = await stream.readuntil(b"\0")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                break
            try:
                message = json.loads(chunk[:-1])
            except ValueError:
                continue
            waiter = self._waiting.pop(message.get("id", -1), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
        for waiter in self._waiting.values():
            if not waiter.done():
                waiter.set_exception(ConnectionError("the browser closed its DevTools pipe"))

    async def call(self, method: str, /, session_id: str | None = None, **params: Any) -> dict[str, Any]:
        """`method` of the browser, or of the page attached as `session_id`; its result."""
        self._ids += 1
        key = self._ids
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[key] = waiter
        message = {"id": key, "method": method, "params": params, **({"sessionId": session_id} if session_id else {})}
        data = json.dumps(message).encode() + b"\0"
        try:
            os.write(self.write_fd, data)
            answer = await asyncio.wait_for(waiter, TIMEOUT)
        finally:
            self._waiting.pop(key, None)
        if "error" in answer:
            raise ConnectionError(str(answer["error"].get("message", answer["error"])))
        return dict(answer.get("result") or {})

    async def activate_page(self) -> bool:
        """Bring the app's page (its window) to the front."""
        try:
            targets = (await self.call("Target.getTargets")).get("targetInfos", [])
            pages = [t for t in targets if t.get("type") in ("page", "app")]
            if not pages:
                return False
            await self.call("Target.activateTarget", targetId=pages[0]["targetId"])
        except (OSError, ConnectionError, TimeoutError) as exc:
            log.info("could not bring the window to the front: %s", exc)
            return False
        return True

    def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        try:
            os.close(self.write_fd)
        except OSError:
            pass


async def start_browser(command: list[str]) -> tuple[asyncio.subprocess.Process, DevToolsPipe | None]:
    """Start the browser; with `--remote-debugging-pipe` in `command`, also the pipe to it."""
    if "--remote-debugging-pipe" not in command or os.name != "posix":
        process = await asyncio.create_subprocess_exec(
            *command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return process, None
    to_browser_r, to_browser_w = (_high(fd) for fd in os.pipe())
    from_browser_r, from_browser_w = (_high(fd) for fd in os.pipe())

    def child_fds() -> None:  # in the child, before exec: the pipe ends as fds 3 and 4
        os.dup2(to_browser_r, 3)
        os.dup2(from_browser_w, 4)

    try:
        process = await asyncio.create_subprocess_exec(
            *command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=child_fds)
    except BaseException:
        for fd in (to_browser_r, to_browser_w, from_browser_r, from_browser_w):
            os.close(fd)
        raise
    os.close(to_browser_r)
    os.close(from_browser_w)
    pipe = DevToolsPipe(to_browser_w, from_browser_r)
    pipe.start()
    return process, pipe


def _high(fd: int) -> int:
    """`fd` moved above 4, so that placing the pipe at 3 and 4 in the child overwrites neither end."""
    if fd > 4:
        return fd
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved
