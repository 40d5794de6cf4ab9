"""Helpers for tests that drive an `Engine` in process: waiting on its state, never on a delay."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from gui.core.door.engine import Engine
from gui.core.events import InteractionCreated


def next_pending_request(engine: Engine) -> asyncio.Future[str]:
    """The id of the next request that waits for a person (subscribe before starting the run)."""
    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def listen(event: object) -> None:
        if isinstance(event, InteractionCreated) and event.record.get("status") == "pending" and not found.done():
            found.set_result(event.interaction_id)

    unsubscribe = engine.subscribe(listen)
    found.add_done_callback(lambda _: unsubscribe())
    return found


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Until `predicate()` holds, yielding to the loop between looks; TimeoutError after `timeout` s."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0)
