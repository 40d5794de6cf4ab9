"""A step on a host, on Temporal: how the app's call of a step that says `"on": "node-a"` reaches that
host's worker, and what comes back.

The run's own workflow sends it: one activity, `host_call`, on the host's queue
(`gui.temporal.hosts.host_queue`), with no workflow of its own between them. The app approves the
step as any step, in the step's `call_tool` (a local activity for a step on a host); the call then
signs it with the app's step key (`gui.temporal.signing`: the worker runs nothing that this app did
not sign for it, for this call) and pauses (`SentToHost`): `call_tool` ends saying so (`ON_HOST` and
the signed step), the workflow calls `host_call` (`on_host`), and makes the call again with the
host's `HostResult`, which the call gives back (or fails with) as if it had waited for it there.

The call is in the run's workflow history: an app restarted during it finds the same call (going on,
or ended) and never sends it again. Stop or a time limit cancels the activity, which cancels the
call on the host (the command's process group ended there); the workflow waits for its end before
the step is recorded cancelled. A host's worker that dies mid-call stops heartbeating: after
`CALL_HEARTBEAT` the call is made again only when its group says `on_error: retry` (its retry
policy), else the step fails saying it may have run there.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, is_cancelled_exception
from temporalio.exceptions import TimeoutError as TemporalTimeout

with workflow.unsafe.imports_passed_through():
    from gui.core.errors import ToolError
    from gui.core.runs import CALLED_AGAIN_ON, MAY_HAVE_RUN_ON
    from gui.core.sequences import RETRY_ATTEMPTS
    from gui.core.tools import ToolContext
    from gui.temporal.approvals import CALLING
    from gui.temporal.hosts import FOREVER, host_queue
    from gui.temporal.plans import HostResult, HostStep, call_of, workflow_id
    from gui.temporal.signing import StepSigner, no_signer_words

CALL_HEARTBEAT = timedelta(seconds=3)  # a host's call whose worker died is seen after this


class SentToHost(BaseException):  # noqa: N818 (not an error: the call pauses)
    """A step's call, signed for its host: it pauses while the run's workflow sends it there."""

    def __init__(self, step: HostStep) -> None:
        super().__init__(step.call_id)
        self.step = step

    @property
    def text(self) -> str:
        """The signed step as the workflow reads it back (`step_from`)."""
        return json.dumps(asdict(self.step), separators=(",", ":"))


def step_from(text: str) -> HostStep:
    return HostStep(**json.loads(text))


async def on_host(step: HostStep) -> HostResult:
    """In the run's workflow: the call of `step` on its host, to its end there. Cancelled, the call is
    cancelled there and waited for (asyncio.CancelledError, or an ActivityError that says so)."""
    try:
        result = await workflow.execute_activity(
            "host_call", step, task_queue=host_queue(step.host), activity_id=step.activity_id,
            result_type=HostResult, start_to_close_timeout=FOREVER, heartbeat_timeout=CALL_HEARTBEAT,
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=step.attempts),
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
    except ActivityError as exc:
        if is_cancelled_exception(exc):
            raise
        return HostResult(False, error=f"the call on {step.host} failed: {exc.cause or exc}", lost=_worker_lost(exc))
    assert isinstance(result, HostResult)
    return result


class TemporalHostCalls:
    """`HostCalls` on Temporal: a call signs its step and pauses (`SentToHost`) while the run's
    workflow sends it; made again, it gives back the host's result (`results`, by step)."""

    def __init__(self, results: dict[str, HostResult], signer: StepSigner | None) -> None:
        self.results = results  # step (tool_call_id) -> what its host gave back, for the call made again
        self.signer = signer  # None: no step key given, so no step is sent (a host would refuse it)

    async def call(self, host: str, tool: str, args: dict[str, Any], ctx: ToolContext, *, attempt: int,
                   retry: bool) -> Any:
        result = self.results.pop(ctx.tool_call_id, None)
        if result is None:
            if self.signer is None:
                raise ToolError(no_signer_words(host))
            if CALLING.get() != ctx.tool_call_id:  # inside another step's call: no workflow sends it
                raise ToolError(f"the step {ctx.tool_call_id} runs on {host}, which only its run's own workflow "
                                "can send it to: it cannot run inside another step")
            activity = f"seqdesk-step-{ctx.tool_call_id}-{attempt}"
            raise SentToHost(self.signer.sign(HostStep(
                host=host, tool=tool, args=dict(args), step_id=ctx.tool_call_id, run_id=ctx.run_id,
                sequence_name=ctx.sequence_name, group_name=ctx.group_name,
                attempts=RETRY_ATTEMPTS if retry else 1, deadline=ctx.deadline,
                call_id=call_of(workflow_id(ctx.run_id), activity), approval=ctx.approval)))
        if ctx.log is not None:
            if result.attempt > 1:
                ctx.log("warning", CALLED_AGAIN_ON.format(host=host))
            for level, text in result.log:
                ctx.log(level, text)
        if result.lost:
            raise ToolError(MAY_HAVE_RUN_ON.format(host=host))
        if not result.ok:
            raise ToolError(result.error or f"the call on {host} failed")
        return result.result


def _worker_lost(exc: BaseException) -> bool:
    """Whether a failed call's last attempt ended by its worker going silent (a heartbeat timeout)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, TemporalTimeout):
            return True
        cause = getattr(cause, "cause", None)
    return False
