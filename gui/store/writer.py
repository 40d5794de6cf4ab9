"""One thread for every database operation, with writes ahead of reads.

TinyDB (and `HotColdStore`) are not thread-safe. Rather than lock around each call, all reads and
writes run on one dedicated thread: the stores stay single-threaded code, and the order of writes
is the order of requests. The event loop awaits results without being blocked; the CLI and tests
call `run_sync`.

Two lanes: `run`/`submit` (writes, and the reads an answer needs, such as getting one record)
and `read`/`submit_read` (listings: pages of history). The thread always takes the oldest waiting
operation of the first lane before any of the second, so an answer never queues behind listings,
however many clients list at once: it waits at most for the one listing already running (a page
takes a few milliseconds). Within a lane, operations run in submission order.

An operation, once submitted, runs to the end even if the task awaiting it is cancelled: a caller
never has to wonder whether a cancelled write half-happened (it either ran, or was never submitted).
An optional `guard` runs on the writer thread before each operation (the stores pass the instance
lock's check, so nothing is written to a folder this process no longer holds). Operations still
queued when the program ends are run before the thread stops, as `close()` does.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

from gui.store.errors import StoreError

P = ParamSpec("P")
T = TypeVar("T")
WRITE, READ, STOP = 0, 1, 2  # lanes, taken in this order
_Job = tuple[int, int, "tuple[Future[Any], Callable[[], Any]] | None"]


class WriterClosedError(StoreError, RuntimeError):
    """An operation was submitted after `Writer.close()`."""

    code = "writer-closed"

    def __init__(self) -> None:
        super().__init__("The store writer is closed: no more database operations are accepted.")


class Writer:
    """Runs database operations one at a time on its own thread: writes first, then reads."""

    def __init__(self, name: str = "seqdesk-store", guard: Callable[[], None] | None = None) -> None:
        self._local = threading.local()
        self._guard = guard
        self._queue: queue.PriorityQueue[_Job] = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name=name)
        self._thread.start()

    def _work(self) -> None:
        self._local.is_writer = True
        while True:
            try:
                _, _, job = self._queue.get(timeout=0.5)
            except queue.Empty:
                if not threading.main_thread().is_alive():  # the program ended without close()
                    return
                continue
            if job is None:
                return
            future, call = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as exc:  # handed to the caller, like an executor does
                future.set_exception(exc)
            else:
                future.set_result(result)

    def on_writer_thread(self) -> bool:
        """True when called from inside an operation this writer is running."""
        return getattr(self._local, "is_writer", False)

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue `fn(*args, **kwargs)` in the first lane and return its future at once."""
        return self._submit(WRITE, lambda: fn(*args, **kwargs))

    def submit_read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue a listing `fn(*args, **kwargs)` in the second lane (after every queued write)."""
        return self._submit(READ, lambda: fn(*args, **kwargs))

    def _submit(self, lane: int, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        guard = self._guard

        def guarded() -> T:
            if guard is not None:
                guard()
            return call()

        with self._lock:
            if self._closed:
                raise WriterClosedError()
            self._queue.put((lane, next(self._order), (future, guarded)))
        return future

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the writer thread and await its result (or its exception) without blocking."""
        if self.on_writer_thread():
            return fn(*args, **kwargs)
        future = asyncio.wrap_future(self.submit(fn, *args, **kwargs))
        return await asyncio.shield(future)

    async def read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`run` in the second lane: for listings, which may wait for writes but never delay them."""
        if self.on_writer_thread():
            return fn(*args, **kwargs)
        future = asyncio.wrap_future(self.submit_read(fn, *args, **kwargs))
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
        with self._lock:
            if not self._closed:
                self._closed = True
                self._queue.put((STOP, next(self._order), None))
        self._thread.join()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
