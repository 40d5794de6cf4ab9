"""Writer: one thread, submission order, exceptions to the caller, the event loop never blocked."""

from __future__ import annotations

import asyncio
import threading

import pytest
from support.waiting import within

from gui.store.writer import Writer, WriterClosedError

TIMEOUT = 5


@pytest.fixture
def writer():
    w = Writer()
    yield w
    w.close()


async def test_operations_run_in_submission_order_on_one_thread(writer):
    seen: list[int] = []
    threads: set[int] = set()

    def record(n: int) -> int:
        threads.add(threading.get_ident())
        seen.append(n)
        return n * 10

    results = await asyncio.gather(*(writer.run(record, n) for n in range(100)))
    assert seen == list(range(100))
    assert results == [n * 10 for n in range(100)]
    assert len(threads) == 1 and threading.get_ident() not in threads


async def test_an_exception_reaches_the_awaiting_caller(writer):
    def fail() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        await writer.run(fail)
    assert await writer.run(lambda: "still working") == "still working"


def test_run_sync_returns_the_result_and_raises_the_exception(writer):
    assert writer.run_sync(lambda a, b: a + b, 2, 3) == 5
    with pytest.raises(ZeroDivisionError):
        writer.run_sync(lambda: 1 / 0)


def test_run_sync_from_inside_an_operation_runs_directly_instead_of_deadlocking(writer):
    def outer() -> tuple[bool, str]:
        return writer.on_writer_thread(), writer.run_sync(lambda: "inner")

    assert writer.run_sync(outer) == (True, "inner")
    assert not writer.on_writer_thread()


async def test_the_event_loop_keeps_running_while_a_slow_operation_runs(writer):
    loop = asyncio.get_running_loop()
    started = asyncio.Event()
    ticked = asyncio.Event()
    release = threading.Event()
    ticks = 0

    def slow() -> str:
        loop.call_soon_threadsafe(started.set)
        assert release.wait(TIMEOUT), "the test never released the slow operation"
        return "done"

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            if ticks >= 50:
                ticked.set()
            await asyncio.sleep(0)

    task = asyncio.create_task(writer.run(slow))
    counter = asyncio.create_task(ticker())
    try:
        await within(started.wait(), "the slow operation to start")
        await within(ticked.wait(), "the loop to turn 50 times")
        assert not task.done()
        release.set()
        assert await within(task, "the slow operation's end") == "done"
    finally:
        release.set()
        counter.cancel()


async def test_a_submitted_operation_still_runs_when_its_awaiter_is_cancelled(writer):
    loop = asyncio.get_running_loop()
    started = asyncio.Event()
    release = threading.Event()
    written: list[str] = []

    def blocker() -> None:
        loop.call_soon_threadsafe(started.set)
        release.wait(TIMEOUT)

    blocking = asyncio.create_task(writer.run(blocker))
    await within(started.wait(), "the blocking operation to start")
    queued = asyncio.create_task(writer.run(written.append, "kept"))
    await asyncio.sleep(0)  # let the task submit its operation
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(queued, "the cancelled operation to end")
    release.set()
    await within(blocking, "the blocking operation's end")
    await writer.run(lambda: None)
    assert written == ["kept"]


def test_close_finishes_the_queued_operations_then_refuses_new_ones():
    writer = Writer()
    release = threading.Event()
    done: list[int] = []
    writer.submit(release.wait, TIMEOUT)
    for n in range(20):
        writer.submit(done.append, n)
    release.set()
    writer.close()
    assert done == list(range(20))
    with pytest.raises(WriterClosedError):
        writer.run_sync(lambda: None)
    writer.close()


def test_close_from_the_writer_thread_is_refused(writer):
    with pytest.raises(RuntimeError, match="writer thread"):
        writer.run_sync(writer.close)


async def test_a_write_submitted_behind_queued_reads_runs_before_them(writer):
    loop = asyncio.get_running_loop()
    started = asyncio.Event()
    release = threading.Event()
    order: list[str] = []

    def blocker() -> None:
        loop.call_soon_threadsafe(started.set)
        release.wait(TIMEOUT)

    running = asyncio.create_task(writer.read(blocker))
    await within(started.wait(), "the blocking read to start")
    reads = [asyncio.create_task(writer.read(order.append, f"read {n}")) for n in range(5)]
    await asyncio.sleep(0)  # the reads are queued
    write = asyncio.create_task(writer.run(order.append, "write"))
    await asyncio.sleep(0)
    release.set()
    await within(asyncio.gather(running, write, *reads), "the read, the write and the queued reads")
    assert order == ["write", *(f"read {n}" for n in range(5))]  # reads keep their order among themselves


def test_close_also_finishes_queued_reads():
    writer = Writer()
    release = threading.Event()
    done: list[str] = []
    writer.submit(release.wait, TIMEOUT)
    writer.submit_read(done.append, "read")
    writer.submit(done.append, "write")
    release.set()
    writer.close()
    assert done == ["write", "read"]


def blocked(writer: Writer) -> threading.Event:
    """Hold the writer in an operation until the returned event is set (to queue several behind it)."""
    go, running = threading.Event(), threading.Event()
    writer.submit(lambda: (running.set(), go.wait(TIMEOUT)))
    assert running.wait(TIMEOUT)
    return go


def test_writes_left_unsynced_share_one_sync_and_nothing_is_handed_out_before_it(writer):
    events: list[str] = []

    def sync() -> None:
        events.append("sync")

    def write(n: int) -> int:
        assert writer.sync_later(sync)  # the same sync, however many ask for it
        events.append(f"write {n}")
        return n

    go = blocked(writer)
    futures = [writer.submit(write, n) for n in range(5)]
    read = writer.submit_read(lambda: events.append("read"))
    for future in futures:
        future.add_done_callback(lambda f: events.append(f"handed out {f.result()}"))
    go.set()
    assert [f.result(TIMEOUT) for f in futures] == list(range(5))
    read.result(TIMEOUT)
    assert events[:6] == [f"write {n}" for n in range(5)] + ["sync"]  # one sync for the group, first
    assert events.count("sync") == 1 and events.index("read") > events.index("sync")
    assert not writer.sync_later(lambda: None)  # off the writer's thread: the caller syncs itself


def test_a_failed_sync_fails_every_result_that_waited_for_it(writer):
    def sync() -> None:
        raise OSError(5, "Input/output error")

    go = blocked(writer)
    futures = [writer.submit(writer.sync_later, sync), writer.submit(lambda: "after it")]
    go.set()
    for future in futures:
        with pytest.raises(OSError, match="Input/output error"):
            future.result(TIMEOUT)
    assert writer.run_sync(lambda: "the next group") == "the next group"
