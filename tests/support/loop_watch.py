"""How long the event loop holds up everything else: the longest stretch of the loop thread's own
work between two turns of a watching task.

Counted in the loop thread's CPU time (`time.thread_time`), so a machine busy with other programs
(which only delays the thread) does not make it longer, while work done on the loop (which is what
stalls every other request) does. The garbage collector is off meanwhile: a full collection pauses
whichever thread it falls on, for as long as the whole process's objects take to walk (hundreds
of ms in a test process full of pages), and that is not the work being measured.
"""

from __future__ import annotations

import asyncio
import gc
import time
from types import TracebackType


class LoopWatch:
    """`async with LoopWatch() as watch: ...`, then `watch.longest` (seconds of the loop's CPU)."""

    def __init__(self, every: float = 0.001) -> None:
        self.every = every
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        last = time.thread_time()
        while True:
            await asyncio.sleep(self.every)
            now = time.thread_time()
            self.longest = max(self.longest, now - last)
            last = now

    async def __aenter__(self) -> LoopWatch:
        gc.collect()
        gc.disable()
        self._task = asyncio.create_task(self._watch())
        await asyncio.sleep(0)  # it has begun
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        assert self._task is not None
        await asyncio.sleep(self.every * 2)  # a last turn, after the watched work
        self._task.cancel()
        gc.enable()
