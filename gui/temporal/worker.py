"""A team's worker on one host (`seqdesk worker --name node-a --executor temporal://…`): it dials out
to the Temporal service (no port opens on the host), says it is alive in the hosts list, and takes
the steps of its own task queue only (`seqdesk-host-node-a`), running them with the built-in tools
a host carries (`Tool.runs_on_hosts`). It runs only steps the team's app signed for this host and
this call (`gui.temporal.signing`): whoever else writes to the namespace gets the step refused, with a
sentence that names the host and why, in the step's result and in the worker's output.

A step's call heartbeats while it runs: cancelled (Stop, a time limit), the SDK cancels it here and
the tool ends its command's process group, as in the app. The worker's commands die with it (they
are armed to), so a killed worker leaves no command behind; the step says it may have run.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from gui.core.errors import ToolArgumentError, ToolError
from gui.core.tools import Registry, ToolContext
from gui.temporal.executor import TemporalUnavailableError
from gui.temporal.hosts import BEAT_EVERY, HOST_WORKFLOW, HostWorkflow, host_queue, host_workflow_id
from gui.temporal.plans import HostResult, HostStep, call_of
from gui.temporal.signing import StepTrust, refused_words
from gui.temporal.target import TemporalTarget

CONNECT_EVERY = 2.0  # while the service does not answer, tried again this often
HEARTBEAT_EVERY = 0.5  # a call says it is alive this often (its cancellation arrives with the answer)


def host_registry() -> Registry:
    """The built-in tools a host runs."""
    from gui.tools import builtin_tools

    return Registry([tool for tool in builtin_tools() if tool.runs_on_hosts])


class HostWorker:
    def __init__(self, name: str, target: TemporalTarget, trust: StepTrust, registry: Registry | None = None, *,
                 refused: Callable[[str], None] | None = None) -> None:
        self.name = name
        self.target = target
        self.trust = trust  # the app's public keys: only the steps they signed run here
        self.refused = refused  # told each refusal's sentence (the worker's output)
        self.registry = registry or host_registry()
        self.identity = f"{name} ({socket.gethostname()}, pid {os.getpid()})"
        self._leaving = asyncio.Event()
        self._present = asyncio.Event()

    async def run(self, ready: Any = None, waiting: Any = None) -> None:
        """Serve until `stop`; `ready()` is called once the worker polls and is in the hosts list.
        While the service does not answer, it tries again every CONNECT_EVERY seconds, after
        `waiting(reason)` once (a host may start before the service does)."""
        client = await self._connect(waiting)
        if client is None:
            return
        runner = SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(
            "gui", "pydantic", "pydantic_core"))
        worker = Worker(client, task_queue=host_queue(self.name), workflows=[HostWorkflow],
                        activities=[self.be_present, self.host_call], workflow_runner=runner,
                        max_concurrent_activities=100, identity=self.identity,
                        max_heartbeat_throttle_interval=timedelta(seconds=HEARTBEAT_EVERY),
                        default_heartbeat_throttle_interval=timedelta(seconds=HEARTBEAT_EVERY))
        async with worker:
            presence = await client.start_workflow(
                HOST_WORKFLOW, self.name, id=host_workflow_id(self.name), task_queue=host_queue(self.name),
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE)
            await self._present.wait()  # its first heartbeat is in: the list says it is up
            if ready is not None:
                ready()
            await self._leaving.wait()
            try:  # its presence ends while the worker still serves: the list says "stopped"
                await asyncio.wait_for(presence.result(), 10)
            except Exception:  # the list will say "down" instead
                pass

    async def _connect(self, waiting: Any) -> Client | None:
        said = False
        while not self._leaving.is_set():
            try:
                return await Client.connect(self.target.address, namespace=self.target.namespace,
                                            identity=self.identity)
            except (RuntimeError, RPCError) as exc:
                if not said and waiting is not None:
                    waiting(str(TemporalUnavailableError(
                        f"the Temporal service at {self.target.address} (namespace '{self.target.namespace}') "
                        f"does not answer yet ({exc}): trying again every {CONNECT_EVERY:g} s")))
                said = True
            try:
                await asyncio.wait_for(self._leaving.wait(), CONNECT_EVERY)  # the pace of trying again
            except TimeoutError:
                pass
        return None

    def stop(self) -> None:
        self._leaving.set()

    # -- the activities ------------------------------------------------------------------------
    @activity.defn(name="be_present")
    async def be_present(self, name: str) -> None:
        while not self._leaving.is_set():
            activity.heartbeat()
            self._present.set()
            try:
                await asyncio.wait_for(self._leaving.wait(), BEAT_EVERY)  # the pace of "alive"
            except TimeoutError:
                pass

    @activity.defn(name="host_call")
    async def host_call(self, step: HostStep) -> HostResult:
        info = activity.info()
        attempt = info.attempt
        call = call_of(info.workflow_id or "", info.activity_id)
        why = self.trust.refusal(step, self.name, call, info.workflow_run_id or "")
        if why is not None:  # nothing of it runs: the step fails with the reason, the worker says it too
            words = refused_words(self.name, step, why)
            if self.refused is not None:
                self.refused(f"{words} (sent by the call {call})")
            return HostResult(False, error=words, attempt=attempt, worker=self.identity)
        tool = self.registry.get(step.tool)
        if tool is None:
            return HostResult(False, error=f"the host {self.name} has no tool '{step.tool}'", attempt=attempt,
                              worker=self.identity)
        log: list[tuple[str, str]] = []
        ctx = ToolContext(run_id=step.run_id, tool_call_id=step.step_id, tool_name=step.tool,
                          sequence_name=step.sequence_name, group_name=step.group_name, deadline=step.deadline,
                          log=lambda level, text: log.append((level, text)))
        beating = asyncio.create_task(_heartbeat())
        try:
            result = await tool.call(tool.validate_args(step.args), ctx)
        except (ToolError, ToolArgumentError) as exc:
            return HostResult(False, error=str(exc), attempt=attempt, log=log, worker=self.identity)
        except asyncio.CancelledError:
            raise  # cancelled: the tool ended its command (its process group) before this
        except Exception as exc:  # a tool's own bug: reported, never retried as a lost worker
            return HostResult(False, error=f"the tool '{tool.name}' crashed on {self.name}: "
                                           f"{type(exc).__name__}: {exc}", attempt=attempt, log=log,
                              worker=self.identity)
        finally:
            beating.cancel()
        return HostResult(True, result=result, attempt=attempt, log=log, worker=self.identity)


async def _heartbeat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY)  # the pace of "still alive", not a wait for an event
