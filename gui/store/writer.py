"""One thread for every database operation, with writes ahead of reads.

TinyDB (and `HotColdStore`) are not thread-safe. Rather than lock around each call, all reads and
writes run on one dedicated thread: the stores stay single-threaded code, and the order of writes
is the order of requests. The event loop awaits results without being blocked; the CLI and tests
call `run_sync`.

Three lanes: `run`/`submit` (writes, and the reads an answer needs, such as getting one record),
`read`/`submit_read` (listings: pages of history) and `submit_later` (housekeeping nobody waits
for: moving ended records to history). The thread takes the oldest operation of the first lane
that has one, so an answer never queues behind listings, however many clients list at once: it
waits at most for the one operation already running (a page takes a few milliseconds). Listings
go before housekeeping, except that housekeeping waiting longer than `LATER_AFTER` seconds goes
next, so a stream of listings cannot put it off for ever. Within a lane, operations run in
submission order.

A write may leave its fsync to the writer (`sync_later`, as the journal of hot documents does): the
writer then runs the writes queued behind it too, and syncs once, before it hands out any of their
results (group commit). A result is never handed out before everything written up to it is on
disk, so "stored before anyone is told" holds as if each write had synced itself, while a thousand
requests stored at once share one fsync. At most `GROUP` operations wait for one sync, and the
writer syncs before it turns to a listing or to housekeeping.

An operation, once submitted, runs to the end even if the task awaiting it is cancelled: a caller
never has to wonder whether a cancelled write half-happened (it either ran, or was never submitted).
An optional `guard` runs on the writer thread before each operation (the stores pass the instance
lock's check, so nothing is written to a folder this process no longer holds). Operations still
queued when the program ends (or at `close()`) are run before the thread stops.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

from gui.store.errors import StoreError

P = ParamSpec("P")
T = TypeVar("T")
WRITE, READ, LATER = 0, 1, 2  # lanes, taken in this order
LATER_AFTER = 0.05  # seconds housekeeping may wait behind listings
GROUP = 256  # operations whose results may wait for one sync
_Job = tuple[float, "Future[Any]", Callable[[], Any]]
_SYNC: _Job = (0.0, Future(), lambda: None)  # `_next`'s answer when the writes done so far must be synced first


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
        self._lanes: tuple[deque[_Job], deque[_Job], deque[_Job]] = (deque(), deque(), deque())
        self._ready = threading.Condition()
        self._closed = False
        # writer thread only: syncs to do, and the results that wait for them (future, ok, value)
        self._syncs: dict[Callable[[], None], None] = {}
        self._held: list[tuple[Future[Any], bool, Any]] = []
        self._thread = threading.Thread(target=self._work, name=name)
        self._thread.start()

    def _next(self) -> _Job | None:
        """The next operation to run (waiting for one); None once closed and every lane is empty."""
        with self._ready:
            while True:
                writes, reads, later = self._lanes
                if self._held:  # group the writes queued now; anything else waits for the sync
                    return writes.popleft() if writes else _SYNC
                if later and (not reads or time.monotonic() - later[0][0] > LATER_AFTER) and not writes:
                    return later.popleft()
                for lane in self._lanes:
                    if lane:
                        return lane.popleft()
                if self._closed or not threading.main_thread().is_alive():  # closed, or the program ended
                    return None
                self._ready.wait(timeout=0.5)

    def _work(self) -> None:
        self._local.is_writer = True
        while (job := self._next()) is not None:
            if job is _SYNC:
                self._sync()
                continue
            _, future, call = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                outcome = (True, call())
            except BaseException as exc:  # handed to the caller, like an executor does
                outcome = (False, exc)
            if self._syncs or self._held:
                self._held.append((future, *outcome))
                if len(self._held) >= GROUP:
                    self._sync()
            else:
                _hand_out(future, *outcome)
        self._sync()

    def _sync(self) -> None:
        """Do the syncs operations left, then hand out the results that waited for them (a failed
        sync fails them all: what they wrote may not be on disk)."""
        syncs, held = list(self._syncs), self._held
        self._syncs, self._held = {}, []
        failed: BaseException | None = None
        for sync in syncs:
            try:
                sync()
            except BaseException as exc:
                failed = failed or exc
        for future, ok, value in held:
            if failed is not None:
                ok, value = False, failed
            _hand_out(future, ok, value)

    def sync_later(self, sync: Callable[[], None]) -> bool:
        """Called by an operation that wrote without syncing: `sync()` is called once (however many
        operations ask for it) before the result of this operation, or of any after it, is handed
        out. False when not called from an operation of this writer: the caller must sync itself."""
        if not self.on_writer_thread():
            return False
        self._syncs[sync] = None
        return True

    def on_writer_thread(self) -> bool:
        """True when called from inside an operation this writer is running."""
        return getattr(self._local, "is_writer", False)

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue `fn(*args, **kwargs)` in the first lane and return its future at once."""
        return self._submit(WRITE, lambda: fn(*args, **kwargs))

    def submit_read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue a listing `fn(*args, **kwargs)` in the second lane (after every queued write)."""
        return self._submit(READ, lambda: fn(*args, **kwargs))

    def submit_later(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Queue housekeeping `fn(*args, **kwargs)` that nobody waits for (after listings, mostly)."""
        return self._submit(LATER, lambda: fn(*args, **kwargs))

    def _submit(self, lane: int, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        guard = self._guard

        def guarded() -> T:
            if guard is not None:
                guard()
            return call()

        with self._ready:
            if self._closed:
                raise WriterClosedError()
            self._lanes[lane].append((time.monotonic(), future, guarded))
            self._ready.notify()
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
        with self._ready:
            self._closed = True
            self._ready.notify()
        self._thread.join()

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _hand_out(future: Future[Any], ok: bool, value: Any) -> None:
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)
