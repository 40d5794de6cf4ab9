"""A step on a host, on Temporal: how the app's call of a step that says `"on": "node-a"` reaches that
host's worker, and what comes back.

The app approves the step as any step, then starts the workflow `seqdesk-step-<step id>-<attempt>`
(`HostStepWorkflow`, on a queue of the app's, `step_queue`), whose one activity, `host_call`, runs
on the host's queue (`gui.temporal.hosts.host_queue`) and heartbeats; the app waits for its result.
The step is signed by the app's step key (`gui.temporal.signing`): the worker runs nothing that this
app did not sign for it. Stop or a time limit cancels that workflow, which cancels the activity on
the host (the command's process group ended there) and waits for it to have ended. A host's worker
that dies mid-call stops heartbeating: after `CALL_HEARTBEAT` the call is made again only when its
group says `on_error: retry` (its retry policy), else the step fails saying it may have run there.
The workflow's id is the step's: an app restarted during the call finds the same call (going on, or
ended) instead of starting another.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy, WorkflowIDConflictPolicy, WorkflowIDReusePolicy

with workflow.unsafe.imports_passed_through():
    from temporalio.client import Client, WorkflowFailureError
    from temporalio.exceptions import TimeoutError as TemporalTimeout
    from temporalio.exceptions import WorkflowAlreadyStartedError

    from gui.core.errors import ToolError
    from gui.core.runs import CALLED_AGAIN_ON, MAY_HAVE_RUN_ON
    from gui.core.sequences import RETRY_ATTEMPTS
    from gui.core.tools import ToolContext
    from gui.temporal.hosts import FOREVER, host_queue
    from gui.temporal.signing import StepSigner, no_signer_words

STEP_WORKFLOW = "seqdesk-host-step"
CALL_HEARTBEAT = timedelta(seconds=3)  # a host's call whose worker died is seen after this
CUT_WAIT = 30.0  # how long a cancelled call waits for its host to say it ended (a dead host: its heartbeat)


def step_queue(app_queue: str) -> str:
    """The task queue of the steps-on-hosts workflows of the app whose runs go on `app_queue`."""
    return f"{app_queue}-host-steps"


def host_step_id(tool_call_id: str, attempt: int) -> str:
    """The id of the workflow of a step's call on its host, for the step's `attempt`."""
    return f"seqdesk-step-{tool_call_id}-{attempt}"


@dataclass(frozen=True)
class HostStep:
    host: str
    tool: str
    args: dict[str, Any]
    step_id: str  # the step's tool_call_id: SEQDESK_STEP_ID on the host too
    run_id: str
    sequence_name: str = ""
    group_name: str = ""
    attempts: int = 1  # how many times a call whose worker died is made (on_error: retry)
    deadline: float | None = None
    # Signed by the app (`gui.temporal.signing`): the host runs it only when the signature holds.
    call_id: str = ""  # the id of the workflow that sends it: another workflow cannot send it again
    approval: str | None = None  # the approval request that allowed it; None: its tool asks none
    key_id: str = ""
    expires: float = 0.0
    signature: str = ""


@dataclass(frozen=True)
class HostResult:
    ok: bool
    result: Any = None
    error: str | None = None
    attempt: int = 1  # the activity's attempt that gave it (> 1: an earlier one's worker died)
    log: list[tuple[str, str]] = field(default_factory=list)
    worker: str = ""


@workflow.defn(name=STEP_WORKFLOW)
class HostStepWorkflow:
    """One step's call on its host; cancelled, it cancels the call there and waits for its end."""

    @workflow.run
    async def run(self, step: HostStep) -> HostResult:
        result = await workflow.execute_activity(
            "host_call", step, task_queue=host_queue(step.host), result_type=HostResult,
            start_to_close_timeout=FOREVER, heartbeat_timeout=CALL_HEARTBEAT,
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=step.attempts),
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        assert isinstance(result, HostResult)
        return result


class TemporalHostCalls:
    """`HostCalls` on Temporal: each call a `HostStepWorkflow` on the app's queue."""

    def __init__(self, connect: Any, queue: str, signer: StepSigner | None) -> None:
        self._connect = connect  # () -> Client, once connected
        self.queue = queue
        self.signer = signer  # None: no step key given, so no step is sent (a host would refuse it)

    async def call(self, host: str, tool: str, args: dict[str, Any], ctx: ToolContext, *, attempt: int,
                   retry: bool) -> Any:
        if self.signer is None:
            raise ToolError(no_signer_words(host))
        client: Client = await self._connect()
        step_id = host_step_id(ctx.tool_call_id, attempt)
        step = self.signer.sign(HostStep(
            host=host, tool=tool, args=dict(args), step_id=ctx.tool_call_id, run_id=ctx.run_id,
            sequence_name=ctx.sequence_name, group_name=ctx.group_name, attempts=RETRY_ATTEMPTS if retry else 1,
            deadline=ctx.deadline, call_id=step_id, approval=ctx.approval))
        try:
            handle = await client.start_workflow(
                STEP_WORKFLOW, step, id=step_id, task_queue=self.queue, result_type=HostResult,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                request_eager_start=True)  # its first task to this app's step worker at once, no poll between
        except WorkflowAlreadyStartedError:  # it ended before this app restarted: its end is the call's
            handle = client.get_workflow_handle(step_id, result_type=HostResult)
        waiting = asyncio.ensure_future(handle.result())
        try:
            result = await asyncio.shield(waiting)
        except asyncio.CancelledError:  # Stop, or a time limit: ended on the host before this returns
            ending = asyncio.ensure_future(_cancelled_there(handle, waiting))
            while not ending.done():  # a second cut (the time limit, then the workflow's) waits for it too
                try:
                    await asyncio.shield(ending)
                except asyncio.CancelledError:
                    continue
            raise
        except WorkflowFailureError as exc:
            if _worker_lost(exc):
                raise ToolError(MAY_HAVE_RUN_ON.format(host=host)) from None
            raise ToolError(f"the call on {host} failed: {exc.cause or exc}") from None
        if not isinstance(result, HostResult):
            raise ToolError(f"the call on {host} gave back no result")
        if ctx.log is not None:
            if result.attempt > 1:
                ctx.log("warning", CALLED_AGAIN_ON.format(host=host))
            for level, text in result.log:
                ctx.log(level, text)
        if not result.ok:
            raise ToolError(result.error or f"the call on {host} failed")
        return result.result


async def _cancelled_there(handle: Any, waiting: asyncio.Future[Any]) -> None:
    """Cancel the step's workflow and wait for its end: the call cancelled on the host (or its host's
    worker silent past its heartbeat), at most CUT_WAIT."""
    try:
        await handle.cancel()
        await asyncio.wait_for(waiting, CUT_WAIT)
    except Exception:  # cancelled there, as asked (or the host never answered): the call is over here
        pass


def _worker_lost(exc: BaseException) -> bool:
    """Whether a failed call's last attempt ended by its worker going silent (a heartbeat timeout)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, TemporalTimeout):
            return True
        cause = getattr(cause, "cause", None)
    return False
