"""A run as a Temporal workflow: its groups in order, a group's tools as activities, gathered or one
by one as the plan says, cut short at the group's time limit, and stopped by cancelling the workflow.

A tool call that asks for approval pauses (`gui.temporal.approvals`): the workflow waits for the
signal `answered`, then makes the call again with that answer. A seq_call pauses too, once the run it
calls is prepared: that run goes on as a child workflow (this same workflow, its own id), and the call
is made again once it has ended, to give back its outputs. The child is never cancelled by Temporal
(ABANDON): the activities stop it, saying why (`Cut.children`, `RunEnd.children`), as in process.

A step on a host (`"on"`) is approved and signed by `call_tool` as a local activity (it holds no
worker), then sent by this workflow itself as one activity on the host's queue
(`gui.temporal.host_steps`), and the call is made again with the host's result. A failed tool of a
gathered group cancels its siblings on their hosts, each ended there, before the group is cut.

Deterministic: it only orders activities (`gui.temporal.steps` takes every decision, with the core's
code) and keeps a group's time limit with a workflow timer.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ChildWorkflowError, is_cancelled_exception

with workflow.unsafe.imports_passed_through():
    from gui.temporal.host_steps import on_host, step_from
    from gui.temporal.plans import (
        ASKED,
        CALLED,
        CUT,
        ON_HOST,
        Child,
        Cut,
        GroupEnd,
        GroupPlan,
        GroupRef,
        HostResult,
        RunEnd,
        ToolRef,
        workflow_id,
    )

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
        self._children: dict[tuple[int, int], str] = {}  # (group, tool) -> the run its seq_call called, going on
        self._on_hosts: dict[tuple[int, int], asyncio.Task[HostResult]] = {}  # (group, tool) -> its call on its host
        self._cutting: set[int] = set()  # groups whose calls on hosts are cut: a tool of theirs failed

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
                end = RunEnd(run_id, stopped=True, children=self._going_on())
            else:
                end = RunEnd(run_id, error=f"internal error: {getattr(exc, 'cause', None) or exc}",
                             children=self._going_on())
        status = await _decide("finish_run", end, str)
        assert isinstance(status, str)
        return status

    def _going_on(self, group: int | None = None) -> list[Child]:
        return [Child(g, t, run) for (g, t), run in self._children.items() if group is None or g == group]

    async def _called(self, ref: GroupRef, index: int, child: str) -> None:
        """Wait for the run a seq_call called, as a child workflow on this run's queue."""
        self._children[(ref.group, index)] = child
        try:
            await workflow.execute_child_workflow(
                WORKFLOW_NAME, child, id=workflow_id(child), task_queue=workflow.info().task_queue,
                result_type=str, cancellation_type=workflow.ChildWorkflowCancellationType.ABANDON,
                parent_close_policy=workflow.ParentClosePolicy.REQUEST_CANCEL)
        except ChildWorkflowError as exc:
            if is_cancelled_exception(exc):  # this run's time limit or Stop cut the wait (not the child)
                raise asyncio.CancelledError from exc
            # else it ended otherwise than by its last step: its record says how
        # (cut short here, it is left in `_children`: the activity that cuts the group or ends the run stops it)
        self._children.pop((ref.group, index), None)

    async def _on_host(self, ref: GroupRef, index: int, text: str) -> HostResult | None:
        """A step's call on its host, to its end there; None when a failed tool of its group cut it."""
        if ref.group in self._cutting:  # signed after its group was cut: never sent, and recorded cut
            await _decide("cut_group", Cut(ref.run_id, ref.group, "abort"), bool)
            return None
        key = (ref.group, index)
        self._on_hosts[key] = task = asyncio.ensure_future(on_host(step_from(text)))
        try:
            return await task
        except (asyncio.CancelledError, ActivityError) as exc:  # cancelled, and ended on its host
            current = asyncio.current_task()
            if ref.group in self._cutting and not (current is not None and current.cancelling()):
                return None  # a failed tool of its group cut it, not the time limit or Stop
            raise asyncio.CancelledError from exc
        finally:
            self._on_hosts.pop(key, None)

    async def _cut_on_hosts(self, group: int) -> None:
        """Cancel the group's calls on hosts (a tool of it failed), each ended there before this returns."""
        self._cutting.add(group)
        calls = [task for (g, _), task in self._on_hosts.items() if g == group]
        for task in calls:
            task.cancel()
        await asyncio.gather(*calls, return_exceptions=True)

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
            called: str | None = None
            hosted: HostResult | None = None
            while True:
                tool = ToolRef(ref.run_id, ref.group, index, answered, called, hosted)
                try:
                    if index in plan.on_hosts:  # only approved, signed and sent from here: no worker held
                        status = str(await _decide("call_tool", tool, str))
                    else:
                        status = str(await workflow.execute_activity(
                            "call_tool", tool, result_type=str, start_to_close_timeout=TOOL,
                            heartbeat_timeout=HEARTBEAT, retry_policy=RETRY))
                except ActivityError as exc:
                    if is_cancelled_exception(exc):  # the time limit or Stop: cancelled, as asyncio says it
                        raise asyncio.CancelledError from exc
                    raise
                answered = called = hosted = None
                if status.startswith(CALLED):  # a seq_call: its run goes on as a child workflow
                    called = status.removeprefix(CALLED)
                    await self._called(ref, index, called)
                    continue
                if status.startswith(ON_HOST):  # signed for its host: sent there, made again with its result
                    hosted = await self._on_host(ref, index, status.removeprefix(ON_HOST))
                    if hosted is None:
                        return CUT
                    continue
                if not status.startswith(ASKED):
                    return status
                # It asked a person and paused: the workflow waits for the answer, no worker held meanwhile.
                asked = status.removeprefix(ASKED)
                await workflow.wait_condition(lambda asked=asked: asked in self._answered)  # type: ignore[misc]
                answered = asked

        async def one_by_one() -> None:
            for index in plan.tools:
                status = await call(index)
                if status == CUT:  # its time ran out (or Stop): nothing after it runs
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
                    await self._cut_on_hosts(ref.group)
                    await _decide("cut_group", Cut(ref.run_id, ref.group, "abort", self._going_on(ref.group)), bool)

            await asyncio.gather(*(one(index) for index in plan.tools))

        try:
            await asyncio.wait_for(one_by_one() if plan.serial else gathered(), plan.timeout)
        except TimeoutError:
            children = self._going_on(ref.group)
            await _decide("cut_group", Cut(ref.run_id, ref.group, "timeout", children), bool)
            for child in children:
                self._children.pop((child.group, child.tool), None)
            return GroupEnd(ref.run_id, ref.group, timed_out=True)
        return GroupEnd(ref.run_id, ref.group, aborted=aborted, failed_at=outcome["failed_at"])
