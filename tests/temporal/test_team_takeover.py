"""A team's processes on one PostgreSQL database and one Temporal service, when one of them stops with
runs going on (closed without ending them, or killed).

Each process polls a queue of its own, named after its stable name. Restarted under that name before
its lease expires, it holds its runs again and they go on by themselves; once the lease has expired,
another process takes each run over: it terminates the run's workflow (saying why: nothing of the
run goes on with no process holding it), cancels its requests and records it interrupted, and the
process restarted later takes none of it up. Two live processes cannot bear one name."""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
import pytest
from support.builders import group, seq, tools
from support.team import TeamServer, team_servers
from support.temporal import TemporalServer
from support.waiting import wait_until, wait_until_sync
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.exceptions import ApplicationError

from gui.core.asks import ApprovalResponse
from gui.core.runs import RunRecord
from gui.pgstore import Leases, ProcessNameTaken
from gui.runtime import Runtime, open_database_runtime
from gui.temporal.plans import workflow_id

pytestmark = pytest.mark.postgres
T = 30.0  # waits on another process's state, on a loaded machine
LEASE = 0.6
ASKS = seq(group("g", tools=tools({"tool": "cmd_run", "args": {"command": "echo hi there"}})))


def names() -> tuple[str, str, str]:
    """A new queue, and the names of two processes."""
    tag = uuid.uuid4().hex[:8]
    return f"over-{tag}", f"a-{tag}", f"b-{tag}"


async def started_asking(runtime: Runtime) -> tuple[RunRecord, str]:
    """A run started in `runtime` whose step waits for a person; its request's id."""
    await runtime.engine.create(ASKS)
    run = await runtime.engine.start("s", {})
    [asked] = await wait_until(runtime.engine.interactions.pending, "the step's request", timeout=T)
    return run, asked.interaction_id


async def interrupted_in(runtime: Runtime, run_id: str) -> RunRecord | None:
    record = await runtime.engine.runs.get(run_id)
    return record if record is not None and record.status == "interrupted" else None


async def epoch_of(url: str, run_id: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        found = await (await conn.execute("SELECT epoch FROM runs WHERE run_id = %s", (run_id,))).fetchone()
    assert found is not None
    return int(found[0])


async def terminated_why(server: TemporalServer, run_id: str) -> str | None:
    """Why the run's workflow was terminated; None while it is not."""
    client = await Client.connect(server.address, namespace=server.namespace)
    handle = client.get_workflow_handle(workflow_id(run_id))
    if (await handle.describe()).status != WorkflowExecutionStatus.TERMINATED:
        return None
    history = await handle.fetch_history()
    [why] = [e.workflow_execution_terminated_event_attributes.reason for e in history.events
             if e.HasField("workflow_execution_terminated_event_attributes")]
    return why


async def test_a_process_restarted_under_its_name_holds_its_runs_again_and_they_go_on(
        temporal_server: TemporalServer, seqdesk_database_url: str) -> None:
    queue, a, b = names()
    url = f"{temporal_server.url}?queue={queue}"
    other = await open_database_runtime(seqdesk_database_url, executor=url, process=b)
    first = await open_database_runtime(seqdesk_database_url, executor=url, process=a)
    try:
        await other.engine.runner.connect()  # its worker polls its own queue all along
        run, asked = await started_asking(first)
        await first.close()  # closed without ending its runs: the workflow waits on the service
        again = await open_database_runtime(seqdesk_database_url, executor=url, process=a)
        try:
            assert run.run_id in again.engine.runner.active_ids()  # held again: its lease is its own
            assert run.run_id not in other.engine.runner.active_ids()
            assert await epoch_of(seqdesk_database_url, run.run_id) == 2  # a new epoch fences its previous life
            await other.engine.interactions.respond(asked, ApprovalResponse(decision="approved"))
            record = await again.engine.runner.wait(run.run_id, T)
            assert record.status == "succeeded" and record.attempt == 1
            stored = await other.engine.runs.get(run.run_id)
            assert stored is not None and stored.status == "succeeded"
            assert stored.groups[0].tools[0].status == "succeeded"
        finally:
            await again.close()
    finally:
        await other.close()


async def first_and_survivor(server: TemporalServer, database_url: str) -> tuple[str, str, str, Runtime, Runtime]:
    """Two processes of a team on one Temporal queue, with short leases: the executor's address, their
    names, the one whose run is taken over (`first`) and the one that takes it over."""
    queue, a, b = names()
    url = f"{server.url}?queue={queue}"
    first = await open_database_runtime(database_url, executor=url, process=a, lease=LEASE)
    survivor = await open_database_runtime(database_url, executor=url, process=b, lease=LEASE)
    return url, a, b, first, survivor


async def test_a_run_whose_process_closed_is_taken_over_its_workflow_ended_and_recorded_interrupted(
        temporal_server: TemporalServer, seqdesk_database_url: str) -> None:
    url, a, b, first, survivor = await first_and_survivor(temporal_server, seqdesk_database_url)
    try:
        run, asked = await started_asking(first)
        await first.close()  # it renews its lease no more; its run's workflow still waits on the service
        record = await wait_until(lambda: interrupted_in(survivor, run.run_id), "the run taken over", timeout=T)
        assert record.cause == "app_stopped" and record.groups[0].tools[0].status == "cancelled"
        why = await wait_until(lambda: terminated_why(temporal_server, run.run_id), "its workflow ended", timeout=T,
                               every=0.1)
        assert f"SeqDesk process seqdesk-{b} took run {run.run_id} over" in why
        assert (await survivor.engine.interactions.get(asked)).status == "cancelled"
        assert await epoch_of(seqdesk_database_url, run.run_id) == 2
        again = await open_database_runtime(seqdesk_database_url, executor=url, process=a, lease=LEASE)
        try:  # back under its name, it takes nothing of it up, and writes nothing of it
            assert run.run_id not in again.engine.runner.active_ids()
            assert not await again.database.runs.claim(run.run_id)  # type: ignore[union-attr]
            stored = await again.engine.runs.get(run.run_id)
            assert stored is not None and stored.model_dump() == record.model_dump()
        finally:
            await again.close()
    finally:
        await survivor.close()


async def test_a_paused_process_whose_run_was_taken_over_drops_its_copy_and_its_steps_are_refused(
        temporal_server: TemporalServer, seqdesk_database_url: str) -> None:
    url, a, b, first, survivor = await first_and_survivor(temporal_server, seqdesk_database_url)
    try:
        run, _asked = await started_asking(first)
        leases = next(c for c in first.closers if getattr(c, "__self__", None).__class__ is Leases)
        first.closers.remove(leases)
        await leases()  # it stops renewing (paused, cut off) but lives, its worker too
        record = await wait_until(lambda: interrupted_in(survivor, run.run_id), "the run taken over", timeout=T)
        assert run.run_id in first.engine.runner.active_ids()  # it has not noticed yet
        assert first.database is not None
        back = Leases(first.engine, first.database.runs, LEASE)  # its lease loop turns again
        back.start()
        try:
            await wait_until(lambda: run.run_id not in first.engine.runner.active_ids(), "its copy dropped",
                             timeout=T)
        finally:
            await back.close()
        assert (await first.engine.runner.wait(run.run_id, T)).status == "interrupted"  # as the store says
        with pytest.raises(ApplicationError, match=f"run {run.run_id} is held by another SeqDesk process"):
            await first.engine.runner.steps.execution(run.run_id)  # type: ignore[attr-defined]
        stored = await survivor.engine.runs.get(run.run_id)
        assert stored is not None and stored.model_dump() == record.model_dump()
    finally:
        await first.close()
        await survivor.close()


async def test_two_live_processes_cannot_bear_one_name(temporal_server: TemporalServer,
                                                         seqdesk_database_url: str) -> None:
    queue, a, _b = names()
    url = f"{temporal_server.url}?queue={queue}"
    first = await open_database_runtime(seqdesk_database_url, executor=url, process=a)
    try:
        with pytest.raises(ProcessNameTaken, match=f"another SeqDesk process named '{a}'"):
            await open_database_runtime(seqdesk_database_url, executor=url, process=a)
    finally:
        await first.close()
    again = await open_database_runtime(seqdesk_database_url, executor=url, process=a)  # free once it closed
    await again.close()


def run_status(server: TeamServer, run_id: str) -> str:
    return str(server.ok("GET", f"/api/runs/{run_id}")["status"])


def pending(server: TeamServer, run_id: str) -> str | None:
    items = server.ok("GET", f"/api/interactions?status=pending&run_id={run_id}")
    return items[0]["request"]["interaction_id"] if items else None


def test_a_killed_servers_run_on_temporal_is_ended_by_the_server_that_takes_it_over(
        tmp_path: Path, temporal_server: TemporalServer, postgres_server, seqdesk_template) -> None:
    import asyncio

    url = postgres_server.create_database(template=seqdesk_template)
    executor = f"{temporal_server.url}?queue={names()[0]}"
    try:
        with team_servers(tmp_path, url, 2, SEQDESK_LEASE=str(LEASE), SEQDESK_EXECUTOR=executor) as (a, b):
            a.ok("POST", "/api/sequences", ASKS)
            run_id = a.ok("POST", "/api/runs", {"sequence": "s"})["run_id"]
            iid = wait_until_sync(lambda: pending(b, run_id), "the request in B's inbox", timeout=T)
            a.kill()
            wait_until_sync(lambda: run_status(b, run_id) == "interrupted", "the run taken over by B", timeout=T)
            why = asyncio.run(terminated_why(temporal_server, run_id))
            assert why is not None and f"took run {run_id} over" in why and "stopped renewing its lease" in why
            assert b.ok("GET", f"/api/interactions/{iid}")["status"] == "cancelled"
            assert b.ok("GET", f"/api/runs/{run_id}")["cause"] == "app_stopped"
    finally:
        postgres_server.drop_database(url)
