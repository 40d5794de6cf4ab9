"""A Stop pressed in one process of a team for a run another process runs (`RunStopRequests`).

The Stop is a claim written on the run's row (`stop_request`: the cause, and where it was pressed),
only while the run has not finished and no Stop was claimed before: of two Stops, pressed anywhere,
exactly one wins. The database tells the process that holds the run (LISTEN `seqdesk_stops`, payload:
the holder's name, a space, the run's id: migrations/0007); should that notice be missed, the
holder's lease loop finds the claim on its next turn (`StopsHeard.sweep`). The holder stops the run
with the claim's cause, and its record says where the Stop was pressed (`RunRecord.stopped_by`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from gui.core.causes import EndCause, as_cause
from gui.core.runs import Executor
from gui.pgstore.pool import connected

log = logging.getLogger(__name__)

STOPS = "seqdesk_stops"  # the channel the holder of a run hears a Stop claimed for it on
CLAIM = """
UPDATE runs SET stop_request = %s WHERE run_id = %s AND NOT finished AND stop_request IS NULL RETURNING 1
"""
ASKED = """
SELECT run_id, stop_request->>'cause', stop_request->>'by' FROM runs
WHERE holder = %s AND NOT finished AND stop_request IS NOT NULL
"""
ASKED_ONE = ASKED + " AND run_id = %s"


def this_process() -> str:
    """Where a Stop pressed here was pressed, as a record says it: the machine and the process id."""
    return f"{socket.gethostname()} (process {os.getpid()})"


class PgStopRequests:
    """The claims of Stops on a team's database; `holder`: this process's connections' name."""

    def __init__(self, pool: AsyncConnectionPool, holder: str) -> None:
        self._pool, self.holder = pool, holder

    async def claim(self, run_id: str, cause: EndCause) -> str | None:
        by = this_process()
        async with connected(self._pool) as conn:
            won = await (await conn.execute(CLAIM, (Jsonb({"cause": cause, "by": by}), run_id))).fetchone()
        return by if won is not None else None

    async def asked(self, run_id: str | None = None) -> list[tuple[str, EndCause | None, str | None]]:
        """The Stops claimed for running runs this process holds (only `run_id`'s, if given)."""
        async with connected(self._pool) as conn:
            query, params = (ASKED_ONE, (self.holder, run_id)) if run_id else (ASKED, (self.holder,))
            rows = await (await conn.execute(query, params)).fetchall()
        return [(r[0], as_cause(r[1]), r[2]) for r in rows]


class StopsHeard:
    """Stops the runs of this process a Stop was claimed for: when the database tells it (`hear`), and
    on each turn of the lease loop (`sweep`), in case a notice was missed."""

    def __init__(self, runner: Executor, requests: PgStopRequests) -> None:
        self._runner, self._requests = runner, requests
        self._stopping: dict[str, asyncio.Task[bool]] = {}

    async def hear(self, run_id: str) -> None:
        await self._act(await self._requests.asked(run_id))

    async def sweep(self) -> None:
        if self._runner.active_ids():
            await self._act(await self._requests.asked())

    async def _act(self, asked: list[tuple[str, EndCause | None, str | None]]) -> None:
        running = set(self._runner.active_ids())
        for run_id, cause, by in asked:
            if run_id in running and run_id not in self._stopping:
                log.info("run %s is stopped: a Stop was pressed for it in %s", run_id, by or "another process")
                task = asyncio.create_task(self._runner.stop(run_id, cause or "person", by=by))
                self._stopping[run_id] = task
                task.add_done_callback(functools.partial(self._done, run_id))

    def _done(self, run_id: str, _task: asyncio.Task[bool]) -> None:
        self._stopping.pop(run_id, None)

    async def close(self) -> None:
        tasks = list(self._stopping.values())
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
