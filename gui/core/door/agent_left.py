"""The agent stopped waiting, the run went on: when an agent's client gives up on a run it asked for.

An agent's request over MCP can give up (it timed out, its client cancelled it, the connection
dropped) while the run waits for a person, who may still answer: the run goes on. Its record then
says when the agent stopped waiting (`RunRecord.agent_left_at`), so the person reading it later knows
the result reached nobody but them. The moment is kept until the run ends and written into its
finished record then, whatever runs it (the executor owns the record while it runs). A run the agent's
leaving stopped (cause `agent_gave_up`) or the agent cancelled says so by its cause instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from gui.core.runs import Executor, RunStore

log = logging.getLogger(__name__)
STOPPED_BY_AGENT = frozenset({"agent_gave_up", "agent_cancelled"})


class AgentLeaving:
    """Notes, on runs still going, that their agent stopped waiting; writes it when each ends."""

    def __init__(self, runner: Executor, runs: RunStore, clock: Callable[[], float] = time.time) -> None:
        self.runner = runner
        self.runs = runs
        self.clock = clock
        self._notes: dict[str, asyncio.Task[None]] = {}

    def note(self, run_id: str) -> bool:
        """The agent stopped waiting for `run_id` now. False when the run does not go on here (it
        ended, or is unknown): there is nothing it went on to do. A second note keeps the first moment."""
        if run_id not in self.runner.active_ids():
            return False
        if run_id not in self._notes:
            task = asyncio.create_task(self._write(run_id, self.clock()), name=f"agent left run {run_id}")
            self._notes[run_id] = task
            task.add_done_callback(lambda _t: self._notes.pop(run_id, None))
        return True

    async def _write(self, run_id: str, at: float) -> None:
        record = await self.runner.wait(run_id)
        if record.cause in STOPPED_BY_AGENT:
            return  # it did not go on: its cause says the agent ended it
        stored = await self.runs.get(run_id) or record
        stored.agent_left_at = at
        await self.runs.save(stored)

    async def settle(self) -> None:
        """The engine closes: the runs have ended, so each note is written now."""
        notes = list(self._notes.values())
        if notes:
            await asyncio.gather(*notes, return_exceptions=True)
