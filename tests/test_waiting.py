"""The tests' own waits (tests/support/waiting.py) give up saying what they waited for, and pass on
what the awaited thing itself said: a test that waits on something that never comes fails at once
with a sentence, never at the suite's timeout."""

from __future__ import annotations

import asyncio
import select
import subprocess
import sys
from collections.abc import Iterator

import pytest
from support.waiting import read_until, within


async def test_within_gives_what_the_awaited_thing_gives():
    done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(done.set_result, "here")
    assert await within(done, "the result") == "here"


async def test_within_gives_up_saying_what_never_came_and_cancels_it():
    never = asyncio.create_task(asyncio.Event().wait())
    with pytest.raises(AssertionError, match=r"gave up after 0.05 s waiting for the tool to start"):
        await within(never, "the tool to start", timeout=0.05)
    await asyncio.gather(never, return_exceptions=True)  # (cancelled, so it is done)
    assert never.cancelled()


async def test_within_passes_on_the_awaited_things_own_timeout_and_cancellation():
    async def times_out() -> None:
        raise TimeoutError("the server's own")

    with pytest.raises(TimeoutError, match="the server's own"):
        await within(times_out(), "the call")
    cancelled = asyncio.create_task(asyncio.Event().wait())
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(cancelled, "the cancelled task to end")


async def test_within_takes_its_timeout_by_name_only():
    waited = asyncio.Event().wait()
    with pytest.raises(TypeError, match="the timeout goes by name"):
        await within(waited, 5)  # type: ignore[arg-type]
    waited.close()


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A process that says `ready` at once, then nothing more until its stdin closes."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    yield proc
    proc.kill()
    proc.wait(30)
    for stream in (proc.stdin, proc.stdout):
        assert stream is not None
        stream.close()


def test_read_until_reads_a_pipe_until_it_said_the_text(child: subprocess.Popen[bytes]):
    assert child.stdout is not None
    assert read_until(child.stdout, "ready\n", "the child to say ready") == "ready\n"


def test_read_until_gives_up_saying_what_never_came_and_what_was_said(child: subprocess.Popen[bytes]):
    assert child.stdout is not None
    assert select.select([child.stdout], [], [], 30)[0], "the child said nothing"  # it has said ready (one write)
    said = r"gave up after 0.5 s waiting for the child to go on \(it said: 'ready\\n'\)"
    with pytest.raises(AssertionError, match=said):
        read_until(child.stdout, "more", "the child to go on", timeout=0.5)


def test_read_until_says_so_when_the_pipe_ends_first(child: subprocess.Popen[bytes]):
    assert child.stdin is not None and child.stdout is not None
    child.stdin.close()  # it ends
    with pytest.raises(AssertionError, match=r"the pipe ended before the child to go on \(it said: 'ready\\n'\)"):
        read_until(child.stdout, "more", "the child to go on")
