"""One thread for every database operation.

TinyDB (and `HotColdStore`) are not thread-safe. Rather than lock around each call, all reads and
writes run on one dedicated thread, in the order they were submitted: the stores stay single-threaded
code, and the order of writes is the order of requests. The event loop awaits results without being
blocked; the CLI and tests call `run_sync`.

An operation, once submitted, runs to the end even if the task awaiting it is cancelled: a caller
never has to wonder whether a cancelled write half-happened (it either ran, or was never submitted).
An optional `guard` runs on the writer thread before each operation (the stores pass the instance
lock's check, so nothing is written to a folder this process no longer holds).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from gui.store.errors import StoreError

P = ParamSpec("P")
T = TypeVar("T")


class WriterClosedError(StoreError, RuntimeError):
    """An operation was submitted after `Writer.close()`."""

    code = "writer-closed"

    def __init__(self) -> None:
        super().__init__("The store writer is closed: no more database operations are accepted.")


class Writer:
    """Runs database operations one at a time, in submission order, on its own thread."""

    def __init__(self, name: str = "seqdesk-store", guard: Callable[[], None] | None = None) -> None:
        self._local = threading.local()
        self._guard = guard
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=name, initializer=self._mark_writer_thread
        )
        self._closed = False

    def _mark_writer_thread(self) -> None:
        self._local.is_writer = True

    def on_writer_thread(self) -> bool:
        """True when called from inside an operation this writer is running."""
        return getattr(self._local, "is_writer", False)

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue `fn(*args, **kwargs)` and return its future at once."""
        if self._closed:
            raise WriterClosedError()
        try:
            if self._guard is None:
                return self._executor.submit(fn, *args, **kwargs)
            return self._executor.submit(self._guarded, lambda: fn(*args, **kwargs))
        except RuntimeError as err:  # shut down between the check and the submit
            raise WriterClosedError() from err

    def _guarded(self, call: Callable[[], T]) -> T:
        assert self._guard is not None
        self._guard()
        return call()

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the writer thread and await its result (or its exception) without blocking."""
        if self.on_writer_thread():
            return fn(*args, **kwargs)
        future = asyncio.wrap_future(self.submit(fn, *args, **kwargs))
        return await asyncio.shield(future)

    def run_sync(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the writer thread and wait for it; for callers without an event loop.

        From the writer thread itself (an operation calling another) `fn` is called directly: waiting
        for the queue there would wait forever.
        """
        if self.on_writer_thread():
            return fn(*args, **kwargs)
        return self.submit(fn, *args, **kwargs).result()

    def close(self) -> None:
        """Refuse new operations, finish the queued ones, stop the thread. Idempotent."""
        if self.on_writer_thread():
            raise RuntimeError("Writer.close() called from the writer thread would wait for itself")
        self._closed = True
        self._executor.shutdown(wait=True)

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
