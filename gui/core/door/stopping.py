"""Stopping a run: here, or on a team's shared store, where the Stop is claimed first (exactly one of
several wins) and a run another process runs is stopped by that process, waited for up to STOP_WAIT.
"""

from __future__ import annotations

import asyncio

from gui.core.causes import EndCause
from gui.core.errors import Unavailable
from gui.core.events import EventBus, RunFinished
from gui.core.runs import Executor, RunStopRequests, RunStore

STOP_WAIT = 10.0  # seconds a Stop of a run another process runs waits for the run's end


class Stopping:
    """The door's Stop (`Engine.stop`)."""

    def __init__(self, runner: Executor, runs: RunStore, bus: EventBus) -> None:
        self.runner = runner
        self.runs = runs
        self.bus = bus

    async def stop(self, run_id: str, cause: EndCause, stop_requests: RunStopRequests | None) -> bool:
        """Stop a running run; False when it is not running (or another Stop won). On a store a team's
        processes share (`stop_requests`; None: there is none), the Stop is claimed there first (exactly
        one wins), and a run another process runs is stopped by that process: this returns once it has
        ended, or after STOP_WAIT seconds."""
        if stop_requests is None:
            return await self.runner.stop(run_id, cause)
        here = run_id in self.runner.active_ids()
        try:
            by = await stop_requests.claim(run_id, cause)
        except Unavailable:
            if not here:
                raise
            by = None  # the store is away: a run of this process is stopped all the same
        else:
            if by is None:
                return False
        if here:  # (the lease loop may have begun stopping it, on seeing the claim: this Stop won all the same)
            stopped = await self.runner.stop(run_id, cause, by=by)
            return stopped or by is not None
        await self._ended_elsewhere(run_id)
        return True

    async def _ended_elsewhere(self, run_id: str) -> None:
        """Wait (up to STOP_WAIT s) until the run another process runs has ended, as this process hears it."""
        ended = asyncio.get_running_loop().create_future()

        def heard(event: object) -> None:
            if isinstance(event, RunFinished) and event.run_id == run_id and not ended.done():
                ended.set_result(None)

        unsubscribe = self.bus.subscribe(heard)
        try:
            stored = await self.runs.get(run_id)
            if stored is None or not stored.finished:
                await asyncio.wait_for(ended, STOP_WAIT)
        except TimeoutError:
            pass  # asked: the process that runs it stops it when it hears of it
        finally:
            unsubscribe()
