"""Two app processes of a team (one PostgreSQL database) on one Temporal queue: each run's record is
written by one process only, and every run ends as it would with one process.

Each process polls a task queue of its own (`TemporalTarget.process_queue`): before, the second
process's worker took some of the runs' workflow tasks and steps, took each such run up from its
stored record, and the store refused its writes (the first process held the run's lease), so the
first process's copy of the run never ended."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from support.builders import group, seq
from support.temporal import TemporalServer
from support.waiting import within

from gui.runtime import open_database_runtime

pytestmark = pytest.mark.postgres
T = 20.0


async def test_runs_started_in_one_process_end_right_whichever_process_takes_their_steps(
        temporal_server: TemporalServer, seqdesk_database_url: str) -> None:
    url = f"{temporal_server.url}?queue=two-{uuid.uuid4().hex[:8]}"
    first = await open_database_runtime(seqdesk_database_url, executor=url)
    second = await open_database_runtime(seqdesk_database_url, executor=url)
    try:
        await second.engine.runner.connect()  # its worker polls the same queue
        await first.engine.create(seq(*(group(f"g{i}") for i in range(4))))
        runs = [await first.engine.start("s", {}) for _ in range(8)]
        ends = asyncio.gather(*(first.engine.runner.wait(r.run_id) for r in runs))
        records = await within(ends, "the eight runs' ends")
        assert [r.status for r in records] == ["succeeded"] * 8
        for run in runs:
            stored = await second.engine.runs.get(run.run_id)
            assert stored is not None and stored.status == "succeeded"
            assert [g.status for g in stored.groups] == ["succeeded"] * 4
    finally:
        await first.close()
        await second.close()
