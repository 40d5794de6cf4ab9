"""Two engines on one PostgreSQL database, each with its own connections and notices, as two team
processes have: a request asked by one shows in the other; an answer given in either wakes the tool
waiting in the one that runs it; start-up does not end the other's runs."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from support.engine import next_pending_request
from support.waiting import wait_until, within

from gui.core.events import InteractionEnded, RunFinished, RunStarted
from gui.core.runs import RunRecord
from gui.runtime import Runtime, open_database_runtime, open_runtime

pytestmark = pytest.mark.postgres
T = 30.0  # waits on state: generous for a loaded machine (the suite on 2 cores)
TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort",
    "tools": '{"tool": "cmd_run", "args": {"command": "echo hi there"}} ;'}]}


async def two(url: str) -> tuple[Runtime, Runtime]:
    return await open_runtime(store=url), await open_runtime(store=url)


async def test_an_answer_given_in_one_process_resumes_the_tool_waiting_in_the_other(seqdesk_database_url):
    runs_here, answers_there = await two(seqdesk_database_url)
    try:
        here, there = runs_here.engine, answers_there.engine
        await here.create(TREE)
        for _ in range(3):
            asked_there = next_pending_request(there)  # the other process's pages hear of the request
            run = await here.start("asks", {})
            iid = await within(asked_there, "the request, heard in the other process")
            await there.respond(iid, {"kind": "approval", "decision": "approved"})
            finished = await here.runner.wait(run.run_id, T)
            assert finished.status == "succeeded"
            assert (await there.interactions.get(iid)).status == "resolved"
    finally:
        await runs_here.close()
        await answers_there.close()


async def test_two_processes_answering_one_request_one_wins_and_the_tool_resumes_once(seqdesk_database_url):
    runs_here, answers_there = await two(seqdesk_database_url)
    try:
        here, there = runs_here.engine, answers_there.engine
        await here.create(TREE)
        asked = next_pending_request(here)
        run = await here.start("asks", {})
        iid = await within(asked, "the run's approval request")
        ended: list[str] = []
        here.subscribe(lambda e: ended.append(e.status) if isinstance(e, InteractionEnded) else None)
        results = await asyncio.gather(
            here.respond(iid, {"kind": "approval", "decision": "approved"}),
            there.respond(iid, {"kind": "approval", "decision": "denied"}), return_exceptions=True)
        winners = [r for r in results if not isinstance(r, BaseException)]
        assert len(winners) == 1, results
        finished = await here.runner.wait(run.run_id, T)
        approved = winners[0].response.decision == "approved"
        assert finished.status == ("succeeded" if approved else "failed") or not approved
        assert ended.count("resolved") == 1
    finally:
        await runs_here.close()
        await answers_there.close()


async def test_a_process_starting_leaves_the_runs_of_another_alone(seqdesk_database_url):
    first = await open_runtime(store=seqdesk_database_url)
    try:
        await first.engine.create(TREE)
        asked = next_pending_request(first.engine)
        run = await first.engine.start("asks", {})
        iid = await within(asked, "the run's approval request")
        second = await open_runtime(store=seqdesk_database_url)
        try:
            assert second.recovered_runs == []
            assert (await second.engine.interactions.get(iid)).status == "pending"
            assert (await second.engine.runs.get(run.run_id)).status == "running"
        finally:
            await second.close()
        await first.engine.respond(iid, {"kind": "approval", "decision": "approved"})
        assert (await first.engine.runner.wait(run.run_id, T)).status == "succeeded"
    finally:
        await first.close()


async def heartbeat(url: str, run_id: str) -> object:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        found = await (await conn.execute("SELECT heartbeat FROM runs WHERE run_id = %s", (run_id,))).fetchone()
    return found[0] if found else None


async def test_a_run_is_interrupted_only_once_its_process_stops_renewing_its_lease(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url, lease=0.6)
    second = await open_database_runtime(seqdesk_database_url, lease=0.6)
    try:
        await first.engine.create(TREE)
        asked = next_pending_request(first.engine)
        run = await first.engine.start("asks", {})
        iid = await within(asked, "the run's approval request")
        beats = {await heartbeat(seqdesk_database_url, run.run_id)}
        await wait_until(lambda: _renewed(seqdesk_database_url, run.run_id, beats), "the lease renewed 3 times")
        assert (await second.engine.runs.get(run.run_id)).status == "running"  # alive: left alone

        first.closers.remove(first_leases := first.closers[-1])  # the first process stops renewing (as if gone)
        await first_leases()
        assert first.database is not None
        await first.database.listener.close()  # ... and hears nothing more, as a process that is gone
        interrupted = await wait_until(lambda: _interrupted(second, run.run_id), "the run taken over", timeout=T)
        assert interrupted.cause == "app_stopped"
        assert (await second.engine.interactions.get(iid)).status == "cancelled"
    finally:
        await first.close()
        await second.close()


async def _renewed(url: str, run_id: str, beats: set[object]) -> bool:
    beats.add(await heartbeat(url, run_id))
    return len(beats) >= 4


async def _interrupted(runtime: Runtime, run_id: str) -> RunRecord | None:
    record = await runtime.engine.runs.get(run_id)
    return record if record is not None and record.status == "interrupted" else None


async def test_one_process_at_a_time_runs_the_schedules_and_another_takes_over_when_it_goes(seqdesk_database_url):
    from gui.pgstore import Leader

    started: list[str] = []

    def leader(name: str) -> Leader:
        async def step_down() -> None:
            started.remove(name)

        return Leader(seqdesk_database_url, name, lambda: started.append(name), step_down, retry=0.05)

    first, second = leader("first"), leader("second")
    first.start()
    await wait_until(lambda: started == ["first"], "the first runs the schedules")
    second.start()
    await wait_until(lambda: first.leading and not second.leading, "the second waits")
    assert started == ["first"]
    await first.close()  # the first process goes: its connection, and the lock, with it
    await wait_until(lambda: second.leading, "the second takes over", timeout=T)
    assert started == ["first", "second"]
    await second.close()


async def test_runs_started_and_finished_in_one_process_are_announced_in_the_other(seqdesk_database_url):
    runs_here, watching = await two(seqdesk_database_url)
    try:
        seen: list[tuple[str, str]] = []
        watching.engine.subscribe(lambda e: seen.append((type(e).__name__, e.run_id))
                                  if isinstance(e, RunStarted | RunFinished) else None)
        here = runs_here.engine
        await here.create(TREE)
        asked = next_pending_request(here)
        run = await here.start("asks", {})
        await wait_until(lambda: ("RunStarted", run.run_id) in seen, "the start told to the other process")
        iid = await within(asked, "the run's approval request")
        await here.respond(iid, {"kind": "approval", "decision": "approved"})
        await wait_until(lambda: ("RunFinished", run.run_id) in seen, "the end told to the other process")
    finally:
        await runs_here.close()
        await watching.close()
