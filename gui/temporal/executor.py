"""The Temporal `Executor`: each run a workflow on a Temporal service, its steps taken by this app's
worker (`gui.temporal.steps`) with the in-process runner's code, so its record, events and pages
are those of a run in process.

Closing the app stops its worker, not its runs: they wait on the service and go on by themselves
when the app (its worker) is back (a step waiting for a person waits in its workflow, not in
a worker: `gui.temporal.approvals`); `take_up` holds them again before start-up recovery, which
interrupts only what no one runs. Stop cancels the run's workflow; the workflow ends its tools.

On a team's database (`process` named, `claim` given) this process's worker polls a queue of its own
(`TemporalTarget.process_queue`): the runs it starts are its own, and no other process's worker
takes their steps. It takes up a run from its record only while the store says it holds the run
(`claim`: a run its previous life under the same name left, which no one took over); a run whose
process is gone and whose lease another process took over is ended there (`end_left`: its workflow
terminated, saying why), not moved to that process's queue: its steps in flight ran on the process
that is gone, and the record that says interrupted is the truth.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from gui.core.asks import InteractionService
from gui.core.causes import EndCause
from gui.core.errors import Unavailable
from gui.core.events import Event, EventBus, InteractionEnded
from gui.core.runs import HostInfo, Origin, Runner, RunRecord, RunStore, copy_record
from gui.core.sequences import Group, Sequence
from gui.core.tools import Registry
from gui.temporal.approvals import WorkflowApprovals
from gui.temporal.host_steps import TemporalHostCalls
from gui.temporal.hosts import list_hosts
from gui.temporal.plans import workflow_id
from gui.temporal.signing import StepSigner
from gui.temporal.steps import Claim, RunSteps
from gui.temporal.target import TemporalTarget
from gui.temporal.workflow import WORKFLOW_NAME, RunWorkflow

Resolver = Callable[[str], Any]


class TemporalUnavailableError(Unavailable):
    pass


class TemporalExecutor:
    """Runs on Temporal; the runner (`local`) holds the live records, the workflow orders the steps."""

    def __init__(self, target: TemporalTarget, registry: Registry, interactions: InteractionService,
                 runs: RunStore, bus: EventBus, resolve: Resolver | None = None, *,
                 clock: Callable[[], float] = time.time, retry_backoff: float = 0.2, process: str | None = None,
                 claim: Claim | None = None) -> None:
        self.target = target
        self.queue = target.process_queue(process)  # this process's runs' task queue
        self.local = Runner(registry, interactions, runs, bus, resolve, clock=clock, retry_backoff=retry_backoff)
        approvals = WorkflowApprovals(interactions)
        self.local.caller.interactions = approvals  # a call's approval is waited for by its workflow
        self.steps = RunSteps(self.local, approvals, self.stop, claim)
        self._signals: set[asyncio.Task[None]] = set()
        bus.subscribe(self._heard)
        # steps that say "on", signed with the key SEQDESK_STEP_KEY names (`gui.temporal.signing`)
        self.local.caller.hosts = TemporalHostCalls(self.steps.hosted, StepSigner.from_environment())
        self._client: Client | None = None
        self._worker: Worker | None = None
        self._worker_task: asyncio.Task[None] | None = None
        self._connecting: asyncio.Lock | None = None

    # -- the service ---------------------------------------------------------------------------
    async def connect(self) -> Client:
        """Connect to the service and start this app's worker (once); TemporalUnavailableError if it
        does not answer."""
        if self._client is not None:
            return self._client
        self._connecting = self._connecting or asyncio.Lock()
        async with self._connecting:
            if self._client is None:
                try:
                    client = await Client.connect(self.target.address, namespace=self.target.namespace)
                except (RuntimeError, RPCError) as exc:
                    raise TemporalUnavailableError(
                        f"the Temporal service at {self.target.address} (namespace '{self.target.namespace}') "
                        f"does not answer: {exc}") from None
                runner = SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(
                    "gui", "pydantic", "pydantic_core"))
                self._worker = Worker(client, task_queue=self.queue, workflows=[RunWorkflow],
                                      activities=self.steps.activities(), workflow_runner=runner,
                                      max_concurrent_activities=1000)
                self._worker_task = asyncio.create_task(self._worker.run(), name="temporal worker")
                self._client = client
        assert self._client is not None
        return self._client

    async def take_up(self) -> list[str]:
        """Hold again the runs of this app's queue still going on the service (after a restart), so
        that start-up recovery leaves them be; their ids. On a team's database only those the store
        lets it hold (`claim`): a run another process took over meanwhile is ended there."""
        client = await self.connect()
        query = (f'WorkflowType="{WORKFLOW_NAME}" AND ExecutionStatus="Running" '
                 f'AND TaskQueue="{self.queue}"')
        taken: list[str] = []
        async for found in client.list_workflows(query):
            run_id = found.id.removeprefix(workflow_id(""))
            record = await self.local.runs.get(run_id)
            if record is None or record.finished:
                continue
            try:
                await self.steps.execution(run_id)
            except ApplicationError:  # another process's now (or gone): its workflow is ended there
                continue
            taken.append(run_id)
        return taken

    # -- answers to the workflows -------------------------------------------------------------
    def _heard(self, event: Event) -> None:
        """A request of a run on Temporal ended (answered, expired, cancelled): its workflow hears it."""
        if not isinstance(event, InteractionEnded) or event.auto or self._client is None:
            return
        run_id = event.run_id
        ex = self.local._active.get(run_id) if run_id is not None else None
        if run_id is None or ex is None or ex.task is not None:  # not a run here, or one inside a step
            return
        task = asyncio.get_running_loop().create_task(self._answered(run_id, event.interaction_id))
        self._signals.add(task)
        task.add_done_callback(self._signals.discard)

    async def _answered(self, run_id: str, interaction_id: str) -> None:
        try:
            await self._handle(run_id).signal("answered", interaction_id)
        except RPCError:  # the workflow has ended: nothing waits for the answer
            pass

    # -- the hosts (`HostBook`) -----------------------------------------------------------------
    async def hosts(self) -> list[HostInfo]:
        """Every host whose worker registered on this namespace, with its state."""
        client = await self.connect()
        try:
            return await list_hosts(client)
        except RPCError as exc:
            raise TemporalUnavailableError(f"Temporal did not list the hosts: {exc}") from None

    async def host_names(self) -> frozenset[str]:
        return frozenset(host.name for host in await self.hosts())

    def _handle(self, run_id: str) -> WorkflowHandle[Any, Any]:
        assert self._client is not None
        return self._client.get_workflow_handle(workflow_id(run_id))

    # -- the Executor --------------------------------------------------------------------------
    async def start(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None,
                    origin: Origin | None = None) -> RunRecord:
        client = await self.connect()
        ex = await self.local._prepare(sequence, args, group, depth=0, parent=None, origin=origin)
        ex.began = True  # its steps are the workflow's: a stop before the first one still ends it
        first = copy_record(ex.record)
        try:
            await client.start_workflow(WORKFLOW_NAME, ex.record.run_id, id=workflow_id(ex.record.run_id),
                                        task_queue=self.queue)
        except RPCError as exc:
            ex.record.status, ex.record.error = "failed", f"Temporal did not take the run: {exc}"
            await self.local._finish(ex)
            raise TemporalUnavailableError(f"Temporal did not take the run: {exc}") from None
        return first

    async def wait(self, run_id: str, timeout: float | None = None) -> RunRecord:
        if run_id in self.local._active:
            return await self.local.wait(run_id, timeout)
        record = await self.local.wait(run_id)  # the saved one; RunNotFoundError for an unknown run
        if not record.finished and self._client is not None:  # going on, on the service, held by no one here
            try:
                await asyncio.wait_for(self._handle(run_id).result(), timeout)
            except (WorkflowFailureError, RPCError):
                pass
            record = await self.local.wait(run_id)
        return record

    async def stop(self, run_id: str, cause: EndCause | None = "person", *, by: str | None = None) -> bool:
        ex = self.local._active.get(run_id)
        if ex is None or ex.done.done():
            return False
        if ex.task is not None:  # a run called through seq_call from inside a step: it runs in this process
            return await self.local.stop(run_id, cause, by=by)
        if ex.finishing:  # its end is being saved: the Stop waits for that end, as the in-process runner's does,
            await ex.ended()  # so that once it returns the stored record is the run's end
            return False
        if ex.stopping:  # a second Stop: the first one is ending the run
            await ex.ended()
            return False
        ex.stopping, ex.stop_cause, ex.stop_by = True, cause, by
        self.local.interactions.note_ending(run_id, cause)
        try:
            await self._handle(run_id).cancel()
        except RPCError:  # the workflow had ended: its last step is ending the run
            pass
        await ex.ended()
        return True

    async def abandon(self, run_id: str) -> bool:
        """Another process took the run over (this one had stopped renewing its lease): a run called
        through seq_call, inside a step here, is stopped so (`Runner.abandon`); this copy of a run on
        the service ends, writing nothing (its workflow was ended by the process that took it over,
        `end_left`; a step of it this worker still gets is refused: `RunSteps.execution`)."""
        ex = self.local._active.get(run_id)
        if ex is None or ex.done.done():
            return False
        if ex.task is not None:
            return await self.local.abandon(run_id)
        ex.fence()
        await self.local._taken_over(ex)
        self.local._announce_end(ex)
        return True

    async def end_left(self, record: RunRecord, why: str) -> None:
        """A run whose process is gone, taken over here (its lease expired): its workflow is
        terminated, saying `why`; its steps on hosts, activities of that workflow, end with it (the
        host's worker cancels the call at its next heartbeat, which finds no workflow). Its child runs
        (seq_call) are runs of that process too: each is taken over, and ended, as its own lease expires."""
        try:
            await self._handle(record.run_id).terminate(reason=why)
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND:  # not found: it had ended, or never began
                raise TemporalUnavailableError(
                    f"Temporal did not end the workflow of run {record.run_id}: {exc}") from None

    async def stop_all(self, cause: EndCause) -> None:
        """The app closing stops the worker, not the runs (they go on when it is back); any other
        cause stops every run."""
        if cause != "app_closed":
            await asyncio.gather(*(self.stop(run_id, cause) for run_id in list(self.local._active)))
            return
        self.steps.closing = True
        # A run called through seq_call runs inside its caller's step, in this process: it stops with
        # the app, saying so; the step that called it is called again when the app is back.
        nested = [run_id for run_id, ex in self.local._active.items() if ex.task is not None]
        await asyncio.gather(*(self.local.stop(run_id, cause) for run_id in nested))
        if self._worker is not None:
            await self._worker.shutdown()
        self._worker = self._client = None

    def snapshot(self, run_id: str) -> RunRecord | None:
        return self.local.snapshot(run_id)

    def active(self) -> list[RunRecord]:
        return self.local.active()

    async def run(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None) -> RunRecord:
        record = await self.start(sequence, args, group=group)
        return await self.wait(record.run_id)

    def active_ids(self) -> list[str]:
        return self.local.active_ids()
