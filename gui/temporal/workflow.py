"""A run as a Temporal workflow: its groups in order, a group's tools as activities, gathered or one
by one as the plan says, cut short at the group's time limit, and stopped by cancelling the workflow.

A tool call that asks for approval pauses (`gui.temporal.approvals`): the workflow waits for the
signal `answered`, then makes the call again with that answer.

Deterministic: it only orders activities (`gui.temporal.steps` takes every decision, with the core's
code) and keeps a group's time limit with a workflow timer.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from gui.temporal.plans import ASKED, Cut, GroupEnd, GroupPlan, GroupRef, RunEnd, ToolRef

WORKFLOW_NAME = "seqdesk-run"
DECISION = timedelta(minutes=5)  # an activity that decides: it reads and saves a record
TOOL = timedelta(days=30)  # a tool's call: it may wait days for a person
HEARTBEAT = timedelta(seconds=10)  # a tool's worker that died is seen after this, and the call retried
RETRY = RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=5)


async def _decide(name: str, arg: object, result_type: type) -> object:
    # A local activity: it works on the live record this very worker holds, with no round trip to the
    # service's task queue (recorded in the workflow's history all the same).
    return await workflow.execute_local_activity(name, arg, result_type=result_type,
                                                 start_to_close_timeout=DECISION, retry_policy=RETRY,
                                                 cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)


@workflow.defn(name=WORKFLOW_NAME)
class RunWorkflow:
    def __init__(self) -> None:
        self._answered: set[str] = set()  # requests of this run that ended (`answered`)

    @workflow.signal(name="answered")
    def answered(self, interaction_id: str) -> None:
        """A request of this run ended (answered, expired, cancelled): its stored end is the answer."""
        self._answered.add(interaction_id)

    @workflow.run
    async def run(self, run_id: str) -> str:
        end = RunEnd(run_id)
        try:
            count = await _decide("open_run", run_id, int)
            assert isinstance(count, int)
            for index in range(count):
                if not await self._group(GroupRef(run_id, index)):
                    break
        except (asyncio.CancelledError, ActivityError) as exc:
            if is_cancelled_exception(exc):  # Stop: the run ends stopped (its tools cut short by `finish_run`)
                end = RunEnd(run_id, stopped=True)
            else:
                end = RunEnd(run_id, error=f"internal error: {getattr(exc, 'cause', None) or exc}")
        status = await _decide("finish_run", end, str)
        assert isinstance(status, str)
        return status

    async def _group(self, ref: GroupRef) -> bool:
        """Run one group; whether the run goes on."""
        plan = await _decide("begin_group", ref, GroupPlan)
        assert isinstance(plan, GroupPlan)
        if plan.kind == "kept":
            return True
        end = GroupEnd(ref.run_id, ref.group, ran=plan.kind != "skipped")
        if plan.kind == "run":
            end = await self._tools(ref, plan)
        goes_on = await _decide("end_group", end, bool)
        return bool(goes_on)

    async def _tools(self, ref: GroupRef, plan: GroupPlan) -> GroupEnd:
        outcome: dict[str, int | None] = {"failed_at": None}
        aborted = False

        async def call(index: int) -> str:
            answered: str | None = None
            while True:
                try:
                    status = str(await workflow.execute_activity(
                        "call_tool", ToolRef(ref.run_id, ref.group, index, answered), result_type=str,
                        start_to_close_timeout=TOOL, heartbeat_timeout=HEARTBEAT, retry_policy=RETRY))
                except ActivityError as exc:
                    if is_cancelled_exception(exc):  # the time limit or Stop: cancelled, as asyncio says it
                        raise asyncio.CancelledError from exc
                    raise
                if not status.startswith(ASKED):
                    return status
                # It asked a person and paused: the workflow waits for the answer, no worker held meanwhile.
                asked = status.removeprefix(ASKED)
                await workflow.wait_condition(lambda asked=asked: asked in self._answered)  # type: ignore[misc]
                answered = asked

        async def one_by_one() -> None:
            for index in plan.tools:
                status = await call(index)
                if status == "cut":  # its time ran out (or Stop): nothing after it runs
                    return
                if status == "failed" and plan.abort:
                    outcome["failed_at"] = index
                    return

        async def gathered() -> None:
            nonlocal aborted

            async def one(index: int) -> None:
                nonlocal aborted
                if await call(index) == "failed" and plan.abort and not aborted:
                    aborted = True
                    await _decide("cut_group", Cut(ref.run_id, ref.group, "abort"), bool)

            await asyncio.gather(*(one(index) for index in plan.tools))

        try:
            await asyncio.wait_for(one_by_one() if plan.serial else gathered(), plan.timeout)
        except TimeoutError:
            await _decide("cut_group", Cut(ref.run_id, ref.group, "timeout"), bool)
            return GroupEnd(ref.run_id, ref.group, timed_out=True)
        return GroupEnd(ref.run_id, ref.group, aborted=aborted, failed_at=outcome["failed_at"])
