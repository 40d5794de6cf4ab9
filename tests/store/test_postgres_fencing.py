"""Fencing, Stops and resumes across the processes of a team on one PostgreSQL database (two or three
engines, each with its own connections, notices and leases, as team processes have).

A process that stops renewing its leases but still lives (paused, cut off) cannot write a run another
process has taken over since; a Stop pressed in any process reaches the one that runs the run, and of
several Stops exactly one wins; of two resumes of one run, exactly one leaves a new run in the store.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import psycopg
import pytest
from contract_support import run
from support.engine import next_pending_request
from support.waiting import wait_until, within

from gui.core.runs import LeaseLost, ResumeRefused, RunRecord
from gui.pgstore import WriteConflict, open_pg_stores
from gui.pgstore.leases import Leases
from gui.runtime import Runtime, open_database_runtime

pytestmark = pytest.mark.postgres
T = 30.0  # waits on state: generous for a loaded machine
LEASE = 0.6


def tree(command: str, name: str = "waits") -> dict[str, object]:
    return {"name": name, "description": "", "groups": [{
        "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
        "timeout": None, "on_error": "abort", "tools": f'{{"tool": "cmd_run", "args": {{"command": "{command}"}}}} ;'}]}


async def stored_row(url: str, run_id: str) -> tuple[str, int, object]:
    """The run's stored document (as text), epoch and stop claim."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        found = await (await conn.execute("SELECT coalesce(raw, doc::text), epoch, stop_request FROM runs "
                                          "WHERE run_id = %s", (run_id,))).fetchone()
    assert found is not None
    return found[0], found[1], found[2]


async def pause(runtime: Runtime) -> None:
    """The process stops renewing its leases and hears nothing more (as if paused or cut off), but lives."""
    leases = next(c for c in runtime.closers if getattr(c, "__self__", None).__class__ is Leases)
    runtime.closers.remove(leases)
    await leases()
    assert runtime.database is not None
    await runtime.database.listener.close()


async def interrupted_in(runtime: Runtime, run_id: str) -> RunRecord | None:
    record = await runtime.engine.runs.get(run_id)
    return record if record is not None and record.status == "interrupted" else None


async def process_started(runtime: Runtime, run_id: str) -> bool:
    record = await runtime.engine.runs.get(run_id)
    return record is not None and record.groups[0].tools[0].process is not None


async def a_run_taken_over(url: str, go: Path) -> tuple[Runtime, Runtime, str]:
    """The first process runs a command that waits for `go`; it pauses; the second takes the run over."""
    first = await open_database_runtime(url, lease=LEASE)
    second = await open_database_runtime(url, lease=LEASE)
    await first.engine.modes.set("cmd_run", "always-allow")
    await first.engine.create(tree(f"while [ ! -e {go} ]; do sleep 0.02; done; echo finished"))
    started = await first.engine.start("waits", {})
    await wait_until(lambda: process_started(first, started.run_id), "the command's start on record")
    await pause(first)
    await wait_until(lambda: interrupted_in(second, started.run_id), "the run taken over", timeout=T)
    return first, second, started.run_id


async def test_a_paused_process_cannot_overwrite_a_run_another_took_over(seqdesk_database_url, tmp_path, caplog):
    go = tmp_path / "go"
    first, second, run_id = await a_run_taken_over(seqdesk_database_url, go)
    try:
        taken_over, epoch, _ = await stored_row(seqdesk_database_url, run_id)
        assert epoch == 2
        caplog.set_level(logging.WARNING, logger="gui.core.runs.runner")
        go.touch()  # the first process's command ends: it goes on to save the run's end
        ended_here = await within(first.engine.runner.wait(run_id), "the run's end here")
        assert run_id not in first.engine.runner.active_ids()  # its copy of the run stopped
        assert ended_here.status == "interrupted"  # and it reads the run as the store has it
        assert await stored_row(seqdesk_database_url, run_id) == (taken_over, 2, None)  # nothing of it kept
        assert any(f"run {run_id} was taken over by another SeqDesk process" in r.getMessage()
                   for r in caplog.records)
    finally:
        await first.close()
        await second.close()


async def test_a_paused_process_that_comes_back_stops_its_copy_without_writing(seqdesk_database_url, tmp_path):
    first, second, run_id = await a_run_taken_over(seqdesk_database_url, tmp_path / "never")
    try:
        taken_over = await stored_row(seqdesk_database_url, run_id)
        assert first.database is not None
        back = Leases(first.engine, first.database.runs, LEASE)  # its lease loop turns again
        back.start()
        try:
            await wait_until(lambda: run_id not in first.engine.runner.active_ids(), "its copy stopped", timeout=T)
        finally:
            await back.close()
        assert await stored_row(seqdesk_database_url, run_id) == taken_over
    finally:
        await first.close()
        await second.close()


async def test_the_store_refuses_a_stale_holders_writes(seqdesk_database_url):
    here = await open_pg_stores(seqdesk_database_url, secret_key="")
    there = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        await here.runs.save(run("r1", status="running"))
        await here.runs.save(run("r1", status="running", error="still mine"))  # the holder writes it
        with pytest.raises(WriteConflict, match="run by another SeqDesk process"):
            await there.runs.save(run("r1", status="failed"))  # no one else, while it runs
        taken = await there.runs.take_over_expired(0.0)
        assert [t.record.run_id for t in taken] == ["r1"] and taken[0].stop is None and there.runs.held == {"r1": 2}
        with pytest.raises(LeaseLost, match="taken over"):
            await here.runs.save(run("r1", status="succeeded"))
        await there.runs.save(run("r1", status="interrupted"))
        with pytest.raises(LeaseLost):
            await here.runs.save_many([run("r1", status="stopped"), run("r2")])
        assert (await here.runs.get("r1")).status == "interrupted"
        assert (await here.runs.get("r2")) is not None  # the rest of the batch is kept
    finally:
        await here.close()
        await there.close()


async def a_write_waits_on_a_lock(url: str) -> bool:
    """Whether a statement of this database waits on a lock another transaction holds."""
    async with await psycopg.AsyncConnection.connect(url) as conn:
        found = await (await conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                          "AND wait_event_type = 'Lock'")).fetchone()
    return found is not None and found[0] > 0


@pytest.mark.parametrize("way", ["save", "first save", "save_many"])
async def test_a_save_under_way_as_its_run_ends_leaves_the_end_to_be_kept(seqdesk_database_url, way):
    """The runner changes a run's record while a save of it waits on the database (a checkpoint's
    save still under way when a Stop ends the run): that save writes the record as it was, running,
    and the run stays held, so the end saved next is kept. (The end was refused once, as if another
    process ran the run, and the run stayed `running` in the store with no process running it.)"""
    url = seqdesk_database_url
    stores = await open_pg_stores(url, secret_key="")
    try:
        record = run("r1", status="running")
        if way != "first save":
            await stores.runs.save(record)
        async with await psycopg.AsyncConnection.connect(url) as other:
            async with other.transaction():  # holds the row (or its id, not yet saved) until it ends
                if way == "first save":
                    await other.execute("INSERT INTO runs (run_id, status, sequence, created_at, finished, doc) "
                                        "VALUES ('r1', 'running', 'x', 0, false, '{}')")
                else:
                    await other.execute("SELECT 1 FROM runs WHERE run_id = 'r1' FOR UPDATE")
                saving = asyncio.create_task(stores.runs.save_many([record]) if way == "save_many"
                                             else stores.runs.save(record))
                await wait_until(lambda: a_write_waits_on_a_lock(url), "the save waiting on the row", timeout=T)
                record.status, record.finished_at = "stopped", 1005.0  # the run ends meanwhile
                if way == "first save":
                    raise psycopg.Rollback()  # the other's row was never there: the save's own goes in
            await within(saving, "the save's end")
        _, epoch, _ = await stored_row(url, "r1")
        assert stores.runs.held == {"r1": epoch}  # written running: still this process's run
        await stores.runs.save(record)  # the run's end
        stored = await stores.runs.get("r1")
        assert stored is not None and stored.status == "stopped"
        assert stores.runs.held == {}
    finally:
        await stores.close()


async def test_a_stop_pressed_in_another_process_stops_the_run_and_says_where(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url)
    second = await open_database_runtime(seqdesk_database_url)
    try:
        await first.engine.create(tree("echo hi"))
        asked = next_pending_request(first.engine)
        started = await first.engine.start("waits", {})
        iid = await within(asked, "the run's approval request")
        assert await second.engine.stop(started.run_id) is True
        ended = await within(first.engine.runner.wait(started.run_id), "the stopped run's end")
        assert (ended.status, ended.cause) == ("stopped", "person")
        stored = await second.engine.runs.get(started.run_id)
        assert stored is not None and stored.status == "stopped"
        assert stored.stopped_by is not None and f"process {os.getpid()}" in stored.stopped_by
        assert (await second.engine.interactions.get(iid)).status == "cancelled"
        assert await second.engine.stop(started.run_id) is False  # it has ended: nothing to stop
    finally:
        await first.close()
        await second.close()


async def test_a_stop_whose_notice_was_missed_is_found_by_the_lease_loop(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url, lease=LEASE)
    second = await open_database_runtime(seqdesk_database_url, lease=LEASE)
    try:
        assert first.database is not None
        await first.database.listener.close()  # the first process hears no notice at all
        await first.engine.create(tree("echo hi"))
        asked = next_pending_request(first.engine)
        started = await first.engine.start("waits", {})
        await within(asked, "the run's approval request")
        assert await second.engine.stop(started.run_id) is True
        ended = await within(first.engine.runner.wait(started.run_id), "the stopped run's end")
        assert ended.status == "stopped" and ended.stopped_by is not None
    finally:
        await first.close()
        await second.close()


async def test_of_stops_pressed_in_three_processes_at_once_exactly_one_wins(seqdesk_database_url):
    runtimes = [await open_database_runtime(seqdesk_database_url) for _ in range(3)]
    try:
        holder = runtimes[0].engine
        await holder.create(tree("echo hi"))
        for _ in range(5):
            asked = next_pending_request(holder)
            started = await holder.start("waits", {})
            await within(asked, "the run's approval request")
            won = await asyncio.gather(*(rt.engine.stop(started.run_id) for rt in runtimes))
            assert won.count(True) == 1, won
            ended = await within(holder.runner.wait(started.run_id), "the stopped run's end")
            assert ended.status == "stopped" and ended.stopped_by is not None
    finally:
        for rt in runtimes:
            await rt.close()


async def test_two_resumes_across_two_processes_leave_one_new_run(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url)
    second = await open_database_runtime(seqdesk_database_url)
    try:
        await first.engine.create(tree("echo hi"))
        asked = next_pending_request(first.engine)
        started = await first.engine.start("waits", {})
        await within(asked, "the run's approval request")
        await first.engine.stop(started.run_id)
        previous = started.run_id
        for _ in range(5):
            results = await asyncio.gather(first.engine.resume(previous), second.engine.resume(previous),
                                           return_exceptions=True)
            won = [r for r in results if isinstance(r, RunRecord)]
            assert len(won) == 1, results
            assert all(isinstance(r, ResumeRefused) for r in results if r not in won), results
            async with await psycopg.AsyncConnection.connect(seqdesk_database_url) as conn:
                found = await (await conn.execute("SELECT run_id FROM runs WHERE doc->>'resumed_from' = %s",
                                                  (previous,))).fetchall()
            assert [r[0] for r in found] == [won[0].run_id]
            previous = won[0].run_id
            holder = first if previous in first.engine.runner.active_ids() else second
            await wait_until(lambda h=holder, p=previous: h.engine.interactions.pending(p), "the new run asks")
            assert await holder.engine.stop(previous) is True
    finally:
        await first.close()
        await second.close()


async def test_a_process_back_under_its_name_holds_only_what_it_claims_and_renews_nothing_else(
        seqdesk_database_url):
    """Its previous life's running runs stay that life's until claimed (`claim`, as Temporal's take-up
    does): the others' leases are not renewed by the name, so they expire and are taken over. No
    process claims a run held under another name."""
    first = await open_pg_stores(seqdesk_database_url, secret_key="", process="holds-what-it-claims")
    await first.runs.save(run("kept", status="running"))
    await first.runs.save(run("left", status="running"))
    await first.close()  # gone with both going on
    again = await open_pg_stores(seqdesk_database_url, secret_key="", process="holds-what-it-claims")
    other = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        assert not await other.runs.claim("kept")  # another name's run
        assert await again.runs.claim("kept") and again.runs.held == {"kept": 2}
        assert not await other.runs.claim("kept")

        async def left_taken_over() -> bool:
            await again.runs.renew_leases()  # its claimed run's lease, renewed as its lease loop does
            await other.runs.take_over_expired(1.0)
            return "left" in other.runs.held

        await wait_until(left_taken_over, "the run it did not claim taken over", timeout=T, every=0.05)
        assert "kept" not in other.runs.held
        assert not await again.runs.claim("left")  # taken over: no longer its name's
        await again.runs.save(run("kept", status="succeeded"))  # its own, at its epoch
    finally:
        await again.close()
        await other.close()
