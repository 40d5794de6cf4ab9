"""The hosts list on Temporal: where a team's workers say they are alive.

A worker (`seqdesk worker --name node-a`, `gui.temporal.worker`) starts the workflow
`seqdesk-host-node-a` on its own task queue (`seqdesk-host-node-a`) and keeps one activity of it
going, which heartbeats every `BEAT_EVERY` seconds: the service keeps the last heartbeat, so anyone
reads a host's liveness from the workflow (`list_hosts`) with no worker answering. A worker that
stops says so by ending the activity ("stopped"); one that was killed stops beating ("down"), and
its restart takes the same workflow up again. How a step reaches a host: `gui.temporal.host_steps`.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from temporalio.client import Client, WorkflowExecutionStatus

    from gui.core.runs import HostInfo, HostState

HOST_WORKFLOW = "seqdesk-host"
BEAT_EVERY = 1.0  # a worker says it is alive this often
PRESENCE_TIMEOUT = timedelta(seconds=4)  # silent this long: the host is down
FOREVER = timedelta(days=3650)


def host_queue(name: str) -> str:
    """The task queue of the host `name`: only its worker takes steps from it."""
    return f"seqdesk-host-{name}"


def host_workflow_id(name: str) -> str:
    return f"seqdesk-host-{name}"


@workflow.defn(name=HOST_WORKFLOW)
class HostWorkflow:
    """A host in the hosts list: its one activity heartbeats while its worker lives."""

    @workflow.run
    async def run(self, name: str) -> str:
        await workflow.execute_activity(
            "be_present", name, task_queue=host_queue(name), start_to_close_timeout=FOREVER,
            heartbeat_timeout=PRESENCE_TIMEOUT,
            retry_policy=RetryPolicy(initial_interval=timedelta(seconds=1), backoff_coefficient=1.0))
        return "stopped"


async def list_hosts(client: Client) -> list[HostInfo]:
    """Every host that registered, by name, with its state as its heartbeats say."""
    latest: dict[str, Any] = {}
    async for found in client.list_workflows(f'WorkflowType="{HOST_WORKFLOW}"'):
        known = latest.get(found.id)
        if known is None or (found.start_time or 0) > (known.start_time or 0):  # type: ignore[operator]
            latest[found.id] = found
    hosts = await asyncio.gather(*(_host(client, found) for found in latest.values()))
    return sorted(hosts, key=lambda h: h.name)


async def host_names_at(address: str, namespace: str, within: float = 10.0) -> frozenset[str]:
    """The names of the hosts that registered on the service at `address` (`seqdesk check` without an
    app); RuntimeError or RPCError when it does not answer, TimeoutError after `within` s."""
    async def names() -> frozenset[str]:
        client = await Client.connect(address, namespace=namespace)
        return frozenset(host.name for host in await list_hosts(client))

    return await asyncio.wait_for(names(), within)


async def _host(client: Client, found: Any) -> HostInfo:
    name = found.id.removeprefix(host_workflow_id(""))
    since = found.start_time.timestamp() if found.start_time else None
    if found.status != WorkflowExecutionStatus.RUNNING:
        closed = found.close_time.timestamp() if found.close_time else None
        return HostInfo(name, "stopped", last_seen=closed, since=since)
    described = await client.get_workflow_handle(found.id, run_id=found.run_id).describe()
    pending = list(described.raw_description.pending_activities)
    state: HostState = "down"
    seen: float | None = None
    worker: str | None = None
    if pending:
        activity_info = pending[0]
        worker = activity_info.last_worker_identity or None
        if activity_info.HasField("last_heartbeat_time"):
            seen = activity_info.last_heartbeat_time.ToDatetime().timestamp()
        elif activity_info.HasField("last_started_time"):
            seen = activity_info.last_started_time.ToDatetime().timestamp()
        started = activity_info.state == 2  # PENDING_ACTIVITY_STATE_STARTED
        if started and seen is not None and time.time() - seen < PRESENCE_TIMEOUT.total_seconds():
            state = "up"
    return HostInfo(name, state, last_seen=seen, since=since, worker=worker)
