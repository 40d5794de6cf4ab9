"""A request's handle: each waiter awaits a future of its own, given the outcome when it comes."""

from __future__ import annotations

import asyncio

import pytest
from support.waiting import within

from gui.core.asks.interactions import ExpiredResult
from gui.core.asks.waiting import Handle


async def test_a_waiter_giving_up_leaves_the_outcome_to_the_others():
    outcome: asyncio.Future = asyncio.get_running_loop().create_future()
    handle = Handle("req-1", outcome)
    leaving, staying = handle.wait(), handle.wait()
    leaving.cancel()
    assert not outcome.cancelled() and not handle.done()
    result = ExpiredResult(interaction_id="req-1")
    outcome.set_result(result)
    assert await within(staying, "the staying waiter's outcome") is result
    assert await within(handle.result(), "the decided outcome") is result  # once decided, a new waiter has it at once


async def test_a_failed_or_cancelled_outcome_reaches_each_waiter():
    loop = asyncio.get_running_loop()
    failed, cancelled = loop.create_future(), loop.create_future()
    waiters = [Handle("req-2", failed).wait(), Handle("req-3", cancelled).wait()]
    failed.set_exception(RuntimeError("the store failed"))
    cancelled.cancel()
    with pytest.raises(RuntimeError, match="the store failed"):
        await within(waiters[0], "the first waiter's outcome")
    with pytest.raises(asyncio.CancelledError):
        await within(waiters[1], "the second waiter's outcome")
