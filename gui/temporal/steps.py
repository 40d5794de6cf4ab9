"""The activities of a run's workflow, in the app's process: each takes one step of the run with the
in-process runner's own code (the run's decisions, `gui.core.runs.decisions`; `Runner`'s events and
saves; `ToolCaller` for a tool's call), on the run's live record, which the runner keeps, saves and
publishes as it does for its own runs.

A run this process does not hold (the app restarted while it went on) is taken up from its saved
record: the workflow's history says where it was, the record what it did. On a team's database, only
once the store lets this process hold it (`Claim`); else its step fails for good, writing nothing.
A tool whose call was cut by the app's end is called again; its log says that it may have run before.

A step on a host pauses once signed (`gui.temporal.host_steps.SentToHost`): the workflow sends it,
and the call, made again with what the host gave back (`ToolRef.hosted`), ends with it; its
approval, given before it was sent, stays as given.

A seq_call prepares the run it calls with the runner's code, then pauses (`RunCalled`): that run
goes on as a child workflow, and the call, made again once it has ended, gives back its outputs (or
fails saying how it ended), as in process. A called run cut short by its caller's group or stop is
stopped here first, saying why (`Cut.children`, `RunEnd.children`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from gui.core.causes import EndCause
from gui.core.errors import Failed
from gui.core.runs import (
    AwaitedElsewhere,
    CallScope,
    Execution,
    Runner,
    ToolRecord,
    group_aborted,
    group_args,
    group_timed_out,
    nested_outputs,
    not_run_after,
    record_stopped,
    run_goes_on,
    write_slots,
)
from gui.core.sequences import OnError, run_step_fingerprints
from gui.temporal.approvals import CALLING, WorkflowApprovals
from gui.temporal.host_steps import SentToHost
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
)

HEARTBEAT_EVERY = 2.0  # a tool's call says it is alive this often (the workflow's HEARTBEAT is larger)
CLOSED = "the app closed during this step: it is called again when the app is back"
MAY_HAVE_RUN = "called again: it may have run before the app or its worker stopped"
ASKED_AGAIN = "called again: the app or its worker stopped before it began (it had not acted)"
MAY_HAVE_ACTED = ("it may have run before the app or its worker stopped; its group does not say on_error: retry, "
                  "so it is not called again")


class RunCalled(BaseException):  # noqa: N818 (not an error: the call pauses)
    """A seq_call prepared the run it calls: the call pauses while that run goes on as a child workflow."""

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self.run_id = run_id


StopRun = Callable[[str, EndCause | None], Awaitable[bool]]
Claim = Callable[[str], Awaitable[bool]]  # whether this process holds the run now (taking it, if its own name left it)


class RunSteps:
    def __init__(self, runner: Runner, approvals: WorkflowApprovals, stop: StopRun, claim: Claim | None = None) -> None:
        self.runner = runner
        self.claim = claim  # None: the one process of a data folder holds every run it has
        self.approvals = approvals
        self.stop = stop  # stops a run on the service (`TemporalExecutor.stop`), waiting for its end
        self._called: dict[str, str] = {}  # step (tool_call_id) -> the run its seq_call called, now ended
        self.hosted: dict[str, HostResult] = {}  # step (tool_call_id) -> what its host gave back (`host_steps`)
        self.closing = False  # the app is closing: a cut call is retried later, not recorded as ended
        self._scopes: dict[tuple[str, int], CallScope] = {}
        self._calls: dict[str, dict[tuple[int, int], asyncio.Task[None]]] = {}
        # A group's time limit, kept here to the millisecond from its first call's start (a workflow
        # timer may fire a second late, and a call reach this worker later than a task in process:
        # the workflow's timer stays as the limit that outlives this process); the groups it cut.
        self._timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._late: set[tuple[str, int]] = set()

    def activities(self) -> list[Callable[..., Any]]:
        return [self.open_run, self.begin_group, self.call_tool, self.cut_group, self.end_group, self.finish_run]

    # -- the run's live state ------------------------------------------------------------------
    async def execution(self, run_id: str) -> Execution:
        """The run as the runner holds it, taken up from its saved record if this process does not."""
        ex = self.runner._active.get(run_id)
        if ex is not None:
            return ex
        if self.claim is not None and not await self.claim(run_id):
            raise ApplicationError(f"run {run_id} is held by another SeqDesk process, or has ended: this process "
                                   "does not take it up", non_retryable=True)
        record = await self.runner.runs.get(run_id)
        if record is None:
            raise ApplicationError(f"there is no run {run_id}", non_retryable=True)
        if self.runner.resolve is None:
            raise ApplicationError(f"run {run_id} cannot be taken up here: no sequences to read", non_retryable=True)
        sequence, group = await self.runner.resolve(record.target or record.sequence)
        groups = (group,) if group is not None else sequence.groups
        context = dict(record.args)
        for grec in record.groups:
            context.update(grec.outputs)
        ex = self.runner._active.get(run_id)  # taken up meanwhile by another step
        if ex is None:
            ex = Execution(record=record, sequence=sequence, groups=groups, context=context,
                           steps=run_step_fingerprints(groups, self.runner.caller.asks), began=True)
            ex.degraded = any(g.status == "failed" or any(t.status == "degraded" for t in g.tools)
                              for g in record.groups)
            self.runner._active[run_id] = ex
        return ex

    def _scope(self, ex: Execution, index: int) -> CallScope:
        key = (ex.record.run_id, index)
        scope = self._scopes.get(key)
        if scope is None:  # taken up mid-group: its inputs again (they were there when it began)
            group, grec = ex.groups[index], ex.record.groups[index]
            args = group_args(ex, group, grec) or {}
            scope = self._scopes[key] = self._new_scope(ex, index, args)
        return scope

    def _new_scope(self, ex: Execution, index: int, args: dict[str, Any]) -> CallScope:
        scope = self.runner._scope(ex, ex.groups[index], ex.record.groups[index], args)
        scope.call_sequence = self.call_run  # a seq_call's run: a child workflow
        return scope

    async def call_run(self, parent: Execution, scope: CallScope, name: str, args: dict[str, Any],
                       depth: int) -> Any:
        """seq_call's `call_sequence`: the outputs of the run the step called, once it has ended; else
        that run prepared, and the call paused (`RunCalled`) while it goes on as a child workflow."""
        step = CALLING.get()
        if step is None:  # not the step's own call (nothing awaits a pause there): the run goes on inside it
            return await self.runner._call_nested(parent, scope, name, args, depth)
        called = self._called.pop(step, None)
        if called is not None:
            record = await self.runner.wait(called)  # ended: its saved record
            return nested_outputs(name, record)
        child = await self.runner.prepare_nested(parent, name, args, depth)
        child.began = True  # its steps are its workflow's: a stop before the first one still ends it
        await scope.save_now()  # the caller's step is on disk as running before its run goes on elsewhere
        raise RunCalled(child.record.run_id)

    async def cut(self, run_id: str, group: int | None = None, children: list[Child] | None = None, *,
                  hosts: bool = True) -> None:
        """Cancel the run's tool calls going on here (of one group, or all) and wait for their ends;
        stop the runs its seq_calls called (`children`), then end those calls; and end the calls
        paused on their approval (no task: the workflow waited for the answer), and, with `hosts`,
        those on hosts (the workflow has cancelled them there before it asks this)."""
        for child in children or []:
            await self._cut_called(run_id, child)
        running = self._calls.get(run_id, {})
        calls = [task for (g, _), task in running.items() if group is None or g == group]
        for task in calls:
            task.cancel()
        await asyncio.gather(*calls, return_exceptions=True)
        ex = self.runner._active.get(run_id)
        if ex is None:
            return
        for grec in ex.record.groups:
            if group is not None and grec.index != group or grec.status != "running":
                continue
            for trec in grec.tools:
                if (grec.index, trec.index) in running:
                    continue
                on_host = hosts and trec.status == "running" and ex.groups[grec.index].tools[trec.index].on is not None
                if trec.status == "waiting" or on_host:
                    await self._cut_paused(ex, grec.index, trec)

    async def _cut_paused(self, ex: Execution, group: int, trec: ToolRecord) -> None:
        """A call paused on its approval, or while its host ran it, is cut: it ends cancelled, as a
        call cut in process does, and its request with it."""
        scope = self._scope(ex, group)
        caller = self.runner.caller
        waiting = trec.status == "waiting"
        if waiting:
            caller.resumed(scope, trec)
        cause = scope.cancel_cause()
        trec.status, trec.error = "cancelled", trec.error or "cancelled"
        trec.cause, trec.finished_at = trec.cause or cause, self.runner.clock()
        caller.finished(scope, trec)
        if waiting and trec.interaction_id is not None:
            await self.runner.interactions.cancel(trec.interaction_id, "turn_stopped", cause)

    async def _cut_called(self, run_id: str, child: Child) -> None:
        """A seq_call cut short while the run it called goes on: that run is stopped with the cause
        that cuts the call, then the call ends cancelled, as `Runner._call_nested` does."""
        ex = self.runner._active.get(run_id)
        if ex is None:
            return
        scope = self._scope(ex, child.group)
        trec = ex.record.groups[child.group].tools[child.tool]
        cause = scope.cancel_cause()
        await self.stop(child.run_id, cause)
        if trec.finished_at is None:
            trec.status, trec.error = "cancelled", trec.error or "cancelled"
            trec.cause, trec.finished_at = trec.cause or cause, self.runner.clock()
            self.runner.caller.finished(scope, trec)

    def _time_up(self, key: tuple[str, int]) -> None:
        self._late.add(key)
        # (a call on a host is cut by the workflow's timer: cancelled there first, then recorded)
        asyncio.ensure_future(self.cut(*key, hosts=False))

    # -- the activities ------------------------------------------------------------------------
    @activity.defn(name="open_run")
    async def open_run(self, run_id: str) -> int:
        return len((await self.execution(run_id)).groups)

    @activity.defn(name="begin_group")
    async def begin_group(self, ref: GroupRef) -> GroupPlan:
        runner = self.runner
        ex = await self.execution(ref.run_id)
        group, grec = ex.groups[ref.group], ex.record.groups[ref.group]
        if grec.reused_from is not None:
            runner._kept(ex, group, grec)
            return GroupPlan("kept")
        runner._group_started(ex, group, grec)
        try:
            args = group_args(ex, group, grec)
        except Failed as exc:
            grec.status, grec.reason = "failed", str(exc)
            return GroupPlan("failed")
        if args is None:
            return GroupPlan("skipped")
        serial = runner._serial_reason(group)
        grec.serial_reason = serial
        key = (ref.run_id, ref.group)
        self._scopes[key] = self._new_scope(ex, ref.group, args)
        tools = [t.index for t in grec.tools if t.reused_from is None]
        return GroupPlan("run", serial=serial is not None, tools=tools, timeout=group.timeout_seconds,
                         abort=group.on_error is not OnError.CONTINUE,
                         on_hosts=[index for index in tools if group.tools[index].on is not None])

    @activity.defn(name="call_tool")
    async def call_tool(self, ref: ToolRef) -> str:
        ex = await self.execution(ref.run_id)
        if (ref.run_id, ref.group) in self._late:  # the group's time ran out before this call began
            return CUT
        scope = self._scope(ex, ref.group)
        trec = ex.record.groups[ref.group].tools[ref.tool]
        if ref.called is not None:
            if trec.finished_at is not None:  # cut short while its run went on (`_cut_called`)
                return CUT if trec.status == "cancelled" else trec.status
            self._called[trec.tool_call_id] = ref.called
        limit = ex.groups[ref.group].timeout_seconds
        if limit is not None and (ref.run_id, ref.group) not in self._timers:
            self._timers[(ref.run_id, ref.group)] = asyncio.get_running_loop().call_later(
                limit, self._time_up, (ref.run_id, ref.group))
        group = ex.groups[ref.group]
        on_host = group.tools[ref.tool].on is not None  # what it sends, the workflow sends: once (`host_steps`)
        if activity.info().attempt > 1 and not on_host:  # a new attempt: the app or its worker stopped in the last
            if (trec.process is not None or trec.status == "running") and group.on_error is not OnError.RETRY:
                # It had begun to act (its command started): called only when its group says retry.
                trec.status, trec.error, trec.finished_at = "failed", MAY_HAVE_ACTED, self.runner.clock()
                self.runner.caller.finished(scope, trec)
                return trec.status
            asked_only = trec.process is None and trec.status != "running"
            trec.finished_at = trec.error = trec.cause = None
            self.runner.caller.log(scope, trec, "warning", ASKED_AGAIN if asked_only else MAY_HAVE_RUN)
        if ref.answered is not None:  # made again once the request it paused on was answered
            self.approvals.answers[trec.tool_call_id] = ref.answered
        if ref.hosted is not None:  # made again with what its host gave back; its approval stays as given
            self.hosted[trec.tool_call_id] = ref.hosted
            if trec.interaction_id is not None:
                self.approvals.answers[trec.tool_call_id] = trec.interaction_id
        again = ref.called is not None or ref.hosted is not None
        call = self.runner.caller.run(scope, group.tools[ref.tool], trec, again=again)
        CALLING.set(trec.tool_call_id)  # its own approval pauses the call (this activity's task only)
        task: asyncio.Task[None] = asyncio.create_task(call)
        calls = self._calls.setdefault(ref.run_id, {})
        calls[(ref.group, ref.tool)] = task
        beating = asyncio.create_task(_heartbeat(activity.info().is_local))
        cut = False
        try:
            await task
        except AwaitedElsewhere as paused:  # it asked a person: the workflow waits for the answer
            return ASKED + paused.interaction_id
        except RunCalled as called:  # a seq_call: the workflow waits for the run it called
            return CALLED + called.run_id
        except SentToHost as sent:  # signed for its host: the workflow sends it there
            return ON_HOST + sent.text
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self.closing or (current is not None and current.cancelling()):
                raise  # this call itself is cut (the app closing): Temporal calls it again later
            cut = True  # the group's time limit, a failed sibling or Stop cut it short
        finally:
            beating.cancel()
            calls.pop((ref.group, ref.tool), None)
        if self.closing:  # whatever the app's end made of the call, it is not the step's end
            raise ApplicationError(CLOSED)
        return CUT if cut else trec.status

    @activity.defn(name="cut_group")
    async def cut_group(self, cut: Cut) -> bool:
        ex = await self.execution(cut.run_id)
        if cut.why == "abort":
            self._scope(ex, cut.group).aborting = True
        await self.cut(cut.run_id, cut.group, cut.children)
        return True

    @activity.defn(name="end_group")
    async def end_group(self, end: GroupEnd) -> bool:
        runner = self.runner
        ex = await self.execution(end.run_id)
        group, grec = ex.groups[end.group], ex.record.groups[end.group]
        key = (end.run_id, end.group)
        if key in self._late and not end.timed_out:  # this process's timer cut it first; a host's call ended since
            await self.cut(end.run_id, end.group)
        self._scopes.pop(key, None)
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        if end.timed_out or key in self._late:
            self._late.discard(key)
            assert group.timeout_seconds is not None
            failure = group_timed_out(grec, group.timeout_seconds)
            grec.status, grec.reason = "failed", str(failure)
        else:
            if end.aborted:
                group_aborted(grec)
            if end.failed_at is not None:
                not_run_after(grec, end.failed_at)
            if end.ran and grec.status == "running":
                write_slots(ex, group, grec)
        runner._group_ended(ex, group, grec, end.ran)
        return run_goes_on(ex, group, grec)

    @activity.defn(name="finish_run")
    async def finish_run(self, end: RunEnd) -> str:
        ex = self.runner._active.get(end.run_id)
        if ex is None:
            stored = await self.runner.runs.get(end.run_id)
            if stored is not None and stored.finished:  # finished before the app restarted
                return stored.status
            ex = await self.execution(end.run_id)
        record = ex.record
        if end.stopped or end.error is not None:
            ex.stopping = ex.stopping or end.stopped
            await self.cut(end.run_id, children=end.children)
        if end.stopped:
            record_stopped(ex)
        elif end.error is not None:
            record.status, record.error = "failed", end.error
        elif record.status == "running":
            record.status = "degraded" if ex.degraded else "succeeded"
        for key in [k for k in self._scopes if k[0] == end.run_id]:
            del self._scopes[key]
        for key in [k for k in self._timers if k[0] == end.run_id]:
            self._timers.pop(key).cancel()
            self._late.discard(key)
        self._calls.pop(end.run_id, None)
        await self.runner._finish(ex)
        return record.status


async def _heartbeat(local: bool) -> None:
    if local:  # a local activity (a step on a host, only sent from here) says nothing: it is short
        return
    while True:
        await asyncio.sleep(HEARTBEAT_EVERY)  # the pace of "still alive", not a wait for an event
        activity.heartbeat()
