"""Running a sequence (SPEC §2): groups one after another, a group's tools side by side.

A run is one asyncio task. Its record is kept here and saved at the moments that matter; its
events go on the bus for every view. Stopping a run cancels its task (so no tool goes on after a
person pressed Stop), then its pending requests, and its final save is never cut short. Every stop
names its cause (`gui.core.causes`: the person, the app closing, an agent giving up...), which the
run, its groups, its tools and its cancelled requests record. A run called through `seq_call` has a
task of its own: it can be stopped on its own, and stopping its caller stops it too (with the
caller's cause, or its group's time limit or failure when that is what cut the call short).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from gui.core.asks import InteractionService
from gui.core.causes import EndCause, reason_for
from gui.core.errors import NotFound, ToolError
from gui.core.events import EventBus, GroupFinished, GroupSkipped, GroupStarted, RunFinished, RunStarted
from gui.core.marks import N_
from gui.core.runs.call_scope import CallScope
from gui.core.runs.decisions import (
    GroupFailed,
    group_aborted,
    group_args,
    group_timed_out,
    not_run_after,
    record_stopped,
    run_goes_on,
    write_slots,
)
from gui.core.runs.eager import start_eagerly
from gui.core.runs.execution import Ending, Execution, Origin, SideBySide, apply_plan, copy_record
from gui.core.runs.offload import GROUP_STEPS, OFF_LOOP_STEPS, off_loop
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord
from gui.core.runs.resume import group_fingerprint
from gui.core.runs.run_ids import new_run_id
from gui.core.runs.store import LeaseLost, RunStore
from gui.core.runs.tool_call import ToolCaller
from gui.core.sequences import (
    Group,
    InvalidSequenceError,
    OnError,
    Sequence,
    ValidationResult,
    check_args,
    run_problem,
    run_step_fingerprints,
    signature_of,
)
from gui.core.tools import Registry

log = logging.getLogger(__name__)
MAX_DEPTH = 8
# The most a run works on the loop, groups whose tools ended as they started back to back, before the
# loop's other work gets a turn: a run of 2,000 such groups held every other request 70-140 ms.
TURN_SECONDS = 0.005


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """The cyclic garbage collector off for a while (objects still go as their last reference does)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

def _steps(groups: tuple[Group, ...]) -> int:
    """The weight of making a run's records, in steps (`OFF_LOOP_STEPS`): each step, and each group as
    `GROUP_STEPS` more (its fingerprint, its record). A run of 1,000 groups of one step, made on the
    loop, held every other request ~30 ms (fingerprints of a sequence just saved are not known yet)."""
    return sum(len(group.tools) for group in groups) + GROUP_STEPS * len(groups)


Resolver = Callable[[str], Awaitable[tuple[Sequence, Group | None]]]


class RunNotFoundError(NotFound):
    pass


class Runner:
    """The in-process `Executor`: each run an asyncio task of this process."""

    def __init__(self, registry: Registry, interactions: InteractionService, runs: RunStore, bus: EventBus,
                 resolve: Resolver | None = None, *, clock: Callable[[], float] = time.time,
                 retry_backoff: float = 0.2) -> None:
        self.registry = registry
        self.interactions = interactions
        self.runs = runs
        self.bus = bus
        self.resolve = resolve
        self.clock = clock
        self.caller = ToolCaller(registry, interactions, bus, clock, retry_backoff)
        self._active: dict[str, Execution] = {}

    # -- public --------------------------------------------------------------------------------
    async def start(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None,
                    origin: Origin | None = None) -> RunRecord:
        """Check args, save the new record, start the run's task; returns the first record. With
        `origin.plan`, the run resumes an earlier one: what that plan keeps is not run again."""
        ex = await self._prepare(sequence, args, group, depth=0, parent=None, origin=origin)
        first = await off_loop(_steps(ex.groups), copy_record, ex.record,  # nothing changes it before its task runs
                               limit=OFF_LOOP_STEPS)
        ex.task = asyncio.create_task(self._execute(ex), name=f"run {ex.record.run_id}")
        return first

    async def run(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None) -> RunRecord:
        """`start`, then `wait` for its end (without the copy of the first record `start` returns)."""
        ex = await self._prepare(sequence, args, group, depth=0, parent=None)
        ex.task = asyncio.create_task(self._execute(ex), name=f"run {ex.record.run_id}")
        return await self.wait(ex.record.run_id)

    async def wait(self, run_id: str, timeout: float | None = None) -> RunRecord:
        ex = self._active.get(run_id)
        if ex is not None:
            await asyncio.wait_for(ex.ended(), timeout)
            return ex.record  # finished: nothing changes it any more
        record = await self.runs.get(run_id)
        if record is None:
            raise RunNotFoundError(f"there is no run {run_id}")
        return record

    def active(self) -> list[RunRecord]:
        return [copy_record(ex.record) for ex in self._active.values()]

    def active_ids(self) -> list[str]:
        return list(self._active)

    def snapshot(self, run_id: str) -> RunRecord | None:
        ex = self._active.get(run_id)
        return copy_record(ex.record) if ex else None

    async def stop(self, run_id: str, cause: EndCause | None = "person", *, by: str | None = None) -> bool:
        """Stop a running run; False when it is not running here. `cause` is what stops it: the
        record says so, and its pending requests are cancelled with it (None: not known, and the
        record says only that it was stopped, never who stopped it). `by`: where the Stop was
        pressed, when a team's store says (another process asked: `RunRecord.stopped_by`)."""
        ex = self._active.get(run_id)
        if ex is None or ex.task is None or (ex.task.done() and ex.ending is None):
            return False  # (a run `stop_all` ends has its end kept after its task ended)
        if ex.stopping:  # a second Stop: the first one is ending the run
            await ex.ended()
            return False
        ex.stopping = True
        ex.stop_cause, ex.stop_by = cause, by
        self.interactions.note_ending(run_id, cause)  # a request its tools withdraw themselves says it too
        while not ex.began and not ex.task.done():
            # A task cancelled before its first step never runs its body, so it would never save
            # its end: let it begin first (it is ready to run: this is one turn of the loop).
            await asyncio.sleep(0)
        if not ex.finishing:  # never interrupt the final save of a run that is ending anyway
            ex.task.cancel()  # a run called through seq_call is stopped by `_call_nested`
        await ex.ended()
        return True

    async def abandon(self, run_id: str) -> bool:
        """Another process took the run over (this one had stopped renewing its lease on a shared
        store): stop this copy of it, writing nothing more of it; False when it does not run here."""
        ex = self._active.get(run_id)
        if ex is None or ex.task is None or (ex.task.done() and ex.ending is None):
            return False
        while not ex.began and not ex.task.done():
            await asyncio.sleep(0)  # as in `stop`: a task cancelled before its first step never ends
        ex.fence()
        await ex.ended()
        return True

    async def end_left(self, record: RunRecord, why: str) -> None:
        """A run that ran in a process now gone ran nowhere else: nothing of it goes on to end."""

    async def stop_all(self, cause: EndCause) -> None:
        """Stop every run at once (closing with thousands waiting). Their ends are kept in bulk: each
        run, cancelled, settles its record and arrives at `_finish` (`Ending`: its task ends there);
        each turn of the loop, the runs that have arrived have their requests cancelled in one write
        and their records saved in another, then their ends are announced. In turns, not all at once:
        a run whose tool called another (`seq_call`) waits for that one's end before it arrives. The
        garbage collector pauses meanwhile: ending makes no cycles, and each of its passes over the
        oldest objects would walk every waiting run (a second per pass with 10,000 waiting)."""
        with paused_collection():
            await self._stop_together(cause)
        await asyncio.gather(*(self.stop(run_id, cause) for run_id in list(self._active)))  # any started since

    async def _stop_together(self, cause: EndCause) -> None:
        ending = Ending()
        for ex in list(self._active.values()):
            if ex.task is None or ex.task.done() or ex.stopping or ex.finishing:
                continue
            ex.stopping, ex.stop_cause, ex.ending = True, cause, ending
            ending.expected += 1
            self.interactions.note_ending(ex.record.run_id, cause)
        for ex in list(self._active.values()):
            if ex.ending is ending and ex.task is not None:
                while not ex.began and not ex.task.done():
                    await asyncio.sleep(0)  # as in `stop`: a task cancelled before its first step never ends
                if not ex.finishing:
                    ex.task.cancel()
        while ending.expected:
            arrived = await ending.next_turn()
            try:
                await self._persist_ends(arrived)
            except LeaseLost as exc:  # the others' ends are kept; these runs are another process's now
                for ex in arrived:
                    if ex.record.run_id in exc.run_ids:
                        ex.fence()
            except Exception:  # as a run's own end would: it still ends, and the others' ends are kept
                log.exception("could not keep the end of %d runs", len(arrived))
            finally:
                for ex in arrived:
                    if ex.fenced:
                        await self._taken_over(ex)
                    self._announce_end(ex)

    # -- preparation ---------------------------------------------------------------------------
    async def _prepare(self, sequence: Sequence, args: Any, group: Group | None, depth: int,
                       parent: str | None, origin: Origin | None = None) -> Execution:
        inputs = dict(group.in_) if group is not None else dict(signature_of(sequence).inputs)
        checked = check_args(inputs, args)
        groups = (group,) if group is not None else sequence.groups
        too_large = run_problem(groups)  # saved before there were limits: kept, but not run as it is
        if too_large is not None:
            raise InvalidSequenceError(ValidationResult(errors=[too_large], warnings=[]))
        run_id = origin.run_id if origin is not None and origin.run_id else new_run_id()
        created_at = self.clock()

        def new_record() -> tuple[RunRecord, tuple[tuple[str | None, ...], ...]]:
            # a record per group and tool, and the fingerprint of each step that asks: in a worker thread
            # for a large sequence. The cyclic garbage collector waits until they are made: they make no
            # cycles, and all stay; collected as they come, every few hundred, each batch would be walked
            # again by the collections of the older generations it moves to (half the run's collector time).
            # Only what differs from the defaults is given: the record keeps the names given (a set per
            # run, 0.7 KB past four names instead of 0.2: a waiting run's memory, `bench_pending`).
            given: dict[str, Any] = {"target": group.name} if group is not None else {}
            if checked:
                given["args"] = checked
            if depth:
                given["depth"] = depth
            with paused_collection():
                return RunRecord(
                    run_id=run_id, sequence=sequence.name, created_at=created_at, **given,
                    groups=[GroupRecord.waiting(i, g.name, group_fingerprint(g), [
                        ToolRecord.queued(j, c.tool, f"{run_id}-{i}-{j}", c.as_, c.on)
                        for j, c in enumerate(g.tools)]) for i, g in enumerate(groups)],
                ), run_step_fingerprints(groups, self.caller.asks)

        record, steps = await off_loop(_steps(groups), new_record, limit=OFF_LOOP_STEPS)
        context = dict(checked)
        if origin is not None:
            record.schedule_id, record.note = origin.schedule_id, origin.note
            record.started_by = origin.started_by
            if origin.plan is not None:
                apply_plan(record, origin.plan)
                context = dict(origin.plan.context)
        ex = Execution(record=record, sequence=sequence, groups=groups, context=context, steps=steps)
        self._active[run_id] = ex
        await ex.save(self.runs)
        self.bus.publish(RunStarted, run_id, sequence=sequence.name, target=record.target, depth=depth,
                         parent=parent, groups=[g.name for g in groups], args=checked)
        return ex

    # -- execution -----------------------------------------------------------------------------
    async def _execute(self, ex: Execution) -> RunRecord:
        record = ex.record
        ex.began = True
        lap = time.perf_counter()
        try:
            for index in range(len(ex.groups)):  # (no zip: a waiting run keeps fewer objects)
                group, grec = ex.groups[index], record.groups[index]
                if grec.reused_from is not None:  # kept from the attempt this run resumes
                    self._kept(ex, group, grec)
                    continue
                self._group_started(ex, group, grec)
                try:  # the group's body awaited here, not in a coroutine of its own
                    ran = await self._group_body(ex, group, grec)
                except GroupFailed as exc:
                    grec.status, grec.reason, ran = "failed", str(exc), True
                self._group_ended(ex, group, grec, ran)
                if not run_goes_on(ex, group, grec):
                    break
                if time.perf_counter() - lap > TURN_SECONDS:  # (a group that waited gave the loop its turns)
                    await asyncio.sleep(0)
                    lap = time.perf_counter()
            else:
                record.status = "degraded" if ex.degraded else "succeeded"
        except asyncio.CancelledError:
            record_stopped(ex)
        except Exception as exc:  # an engine bug must still end the run visibly
            record.status = "failed"
            record.error = f"internal error: {type(exc).__name__}: {exc}"
        finally:
            await self._finish(ex)
        return record

    # The decisions of a run are `gui.core.runs.decisions` (the Temporal executor takes them too).
    def _kept(self, ex: Execution, group: Group, grec: GroupRecord) -> None:
        """A group kept from the attempt this run resumes: said, not run again."""
        ex.degraded = ex.degraded or any(t.status == "degraded" for t in grec.tools)
        self.bus.publish(GroupFinished, ex.record.run_id, group=grec.index, group_name=group.name,
                         status=grec.status, reason=f"kept from run {grec.reused_from}")

    async def _finish(self, ex: Execution) -> None:
        ex.finishing = True
        record = ex.record
        stopped = record.status == "stopped"
        record.settle("stopped" if stopped else "failed",
                      "the run was stopped" if stopped else "an earlier group failed", self.clock(),
                      record.cause if stopped else None)
        outputs = {}
        for group in ex.groups:
            for slot in group.out:
                if slot in ex.context:
                    outputs[slot] = ex.context[slot]
        record.outputs = outputs
        record.finished_at = self.clock()
        ex.cancel_checkpoint()
        if ex.ending is not None:  # `stop_all` keeps this end with the others', then announces it
            ex.ending.arrive(ex)
            return
        try:
            await self._persist_ends([ex])
        except LeaseLost:
            pass  # refused: another process took the run over (`Execution.save` fenced it)
        except Exception:  # as with `stop_all`'s ends: it still ends here, and the log says its end is not kept
            log.exception("could not keep the end of run %s (%s)", record.run_id, record.status)
        finally:
            if ex.fenced:
                await self._taken_over(ex)
            self._announce_end(ex)

    async def _taken_over(self, ex: Execution) -> None:
        """This copy of a run another process took over ends: said in the log; what the store holds
        (that process's record of it) is its record from now on, here too."""
        run_id = ex.record.run_id
        log.warning("run %s was taken over by another SeqDesk process (this one had stopped renewing its lease): "
                    "it stops here, and nothing more of it is written from here", run_id)
        try:
            stored = await self.runs.get(run_id)
        except Exception:  # the store is away: the local copy is all there is to announce
            stored = None
        if stored is not None:
            ex.record = stored

    async def _persist_ends(self, exs: list[Execution]) -> None:
        """Cancel the ended runs' pending requests, then save their records (each in one write). Not
        those another process took over: nothing more of them is written from here."""
        exs = [ex for ex in exs if not ex.fenced]
        if not exs:
            return
        cancelled = {ex.record.run_id: ex.record.cause if ex.record.status == "stopped" else None
                     for ex in exs if ex.record.status in ("failed", "stopped")}
        if len(cancelled) == 1:
            (run_id, cause), = cancelled.items()
            await self.interactions.cancel_run(run_id, reason_for(cause) if cause else "turn_stopped", cause)
        elif cancelled:
            await self.interactions.cancel_runs(cancelled)
        if len(exs) == 1:
            await exs[0].save(self.runs)
        else:
            await self.runs.save_many([ex.record for ex in exs])

    def _announce_end(self, ex: Execution) -> None:
        record = ex.record
        self.bus.publish(RunFinished, record.run_id, sequence=record.sequence, status=record.status,
                         error=record.error, outputs=record.outputs, cause=record.cause)
        self._active.pop(record.run_id, None)
        self.interactions.note_ending(record.run_id, None)
        ex.end()

    def _group_started(self, ex: Execution, group: Group, grec: GroupRecord) -> None:
        grec.started_at = self.clock()
        grec.status = "running"
        if self.bus.listened:  # (two events per group: no keywords gathered for nobody)
            self.bus.publish(GroupStarted, ex.record.run_id, group=grec.index, group_name=group.name)

    def _group_ended(self, ex: Execution, group: Group, grec: GroupRecord, ran: bool) -> None:
        """The group's status from its tools' (unless already decided), said and saved soon."""
        run_id = ex.record.run_id
        grec.finished_at = self.clock()
        failed = cancelled = None  # the first tool that failed, and the first cancelled (one pass)
        for trec in grec.tools:
            status = trec.status
            if status == "succeeded":
                continue
            if status == "failed":
                if failed is None:
                    failed = trec
            elif status == "cancelled":
                if cancelled is None:
                    cancelled = trec
            elif status == "degraded":
                ex.degraded = True
        if grec.status == "running":
            first = failed or cancelled
            if first is not None:
                grec.status = "failed"
                grec.reason = f"tool {first.index + 1} ({first.tool}) failed: {first.error}"
            else:
                grec.status = "succeeded"
        if self.bus.listened:
            self.bus.publish(GroupFinished if ran else GroupSkipped, run_id, group=grec.index, group_name=group.name,
                             status=grec.status, reason=grec.reason, timed_out=grec.timed_out)
        ex.checkpoint(self.runs)

    async def _group_body(self, ex: Execution, group: Group, grec: GroupRecord) -> bool:
        """Run the group's tools; False when its condition is false and the group was skipped instead."""
        args = group_args(ex, group, grec)
        if args is None:
            return False
        serial = self._serial_reason(group)
        grec.serial_reason = serial
        timeout = group.timeout_seconds
        scope = self._scope(ex, group, grec, args)
        try:
            if timeout is None:  # (no timeout context kept by every waiting run)
                await self._tools(scope, group, grec, serial)
            else:
                async with asyncio.timeout(timeout):
                    await self._tools(scope, group, grec, serial)
        except TimeoutError:
            assert timeout is not None
            raise group_timed_out(grec, timeout) from None
        write_slots(ex, group, grec)
        return True

    def _scope(self, ex: Execution, group: Group, grec: GroupRecord, args: dict[str, Any]) -> CallScope:
        """What the group's tool calls need from the run, its deadline counted from now."""
        timeout = group.timeout_seconds
        deadline = self.clock() + timeout if timeout is not None else None
        record, sequence = ex.record, ex.sequence
        # (by position, in the order of its fields: twelve keywords bound per group cost as much as the rest)
        return CallScope(record.run_id, sequence.name, group, grec, args, deadline, record.depth, ex, self.runs,
                         self._call_nested, sequence.identity)

    def _tools(self, scope: CallScope, group: Group, grec: GroupRecord, serial: str | None) -> Awaitable[None]:
        """The group's tools to await: one alone in the group's own task, else side by side or in turn
        (the coroutine that does it, returned: no frame of its own kept while they run)."""
        if len(group.tools) == 1 and grec.tools[0].reused_from is None:
            return self.caller.run(scope, group.tools[0], grec.tools[0])
        if serial is None:
            return self._parallel(scope, group, grec)
        return self._serial(scope, group, grec)

    def _serial_reason(self, group: Group) -> str | None:
        if len(group.tools) < 2:
            return None
        if not group.parallel:
            return "parallel is off for this group: its tools run one by one, in order"
        last = None
        for call in group.tools:  # in order: the first that is not safe is named
            name = call.tool
            if name == last:  # (a tool called many times over: looked up once)
                continue
            last = name
            tool = self.registry.get(name)
            if tool is not None and not tool.concurrency_safe:
                return f"'{name}' is not safe to run beside other tools, so the tools run one by one"
        return None

    async def _parallel(self, scope: CallScope, group: Group, grec: GroupRecord) -> None:
        """The tools side by side: each started at once, in a task of its own once it waits
        (`start_eagerly`: a call that ends without waiting needs none, and a group whose calls all
        do goes on in the same turn of the loop). The calls count themselves out as they end
        (`SideBySide`), instead of a gather's callback per task; a failure that aborts the group
        cancels the others (those not started never start), and the group waits for every task
        before it goes on."""
        side = SideBySide()
        abort = group.on_error is not OnError.CONTINUE

        async def one(index: int) -> None:
            trec = grec.tools[index]
            try:
                await self.caller.run(scope, group.tools[index], trec, side_by_side=True)
            except Exception:  # an engine bug: the record says what it can, the group goes on to its end
                log.exception("tool call %s ended in an internal error", trec.tool_call_id)
            finally:
                if abort and trec.status == "failed" and not scope.aborting:
                    scope.aborting = True
                    side.abort(asyncio.current_task())
                side.ended()

        for index in range(len(group.tools)):
            if scope.aborting:  # one failed as it started: the rest never start (their records say so)
                break
            if grec.tools[index].reused_from is None:
                side.starting()
                task = start_eagerly(one(index))
                if task is not None:
                    side.tasks.append(task)
        side.all_started()
        try:
            if not side.settled:  # (a group whose calls all ended as they started goes on at once)
                await side.waiter()
        finally:
            if side.unsettled():  # aborted, or this group's own task cancelled (a stop, its time limit)
                for task in side.tasks:
                    task.cancel()
                await asyncio.gather(*side.tasks, return_exceptions=True)
        if scope.aborting:
            group_aborted(grec)

    async def _serial(self, scope: CallScope, group: Group, grec: GroupRecord) -> None:
        for index, call in enumerate(group.tools):
            trec = grec.tools[index]
            if trec.reused_from is not None:  # it succeeded in the attempt this run resumes
                continue
            await self.caller.run(scope, call, trec)
            if trec.status == "failed" and group.on_error is not OnError.CONTINUE:
                not_run_after(grec, index)
                return

    # -- seq_call ------------------------------------------------------------------------------
    async def _call_nested(self, parent: Execution, scope: CallScope, name: str, args: dict[str, Any],
                           depth: int) -> Any:
        child = await self.prepare_nested(parent, name, args, depth)
        # Its own task, so that it can be stopped on its own (from its run page) like any run.
        child.task = asyncio.create_task(self._execute(child), name=f"run {child.record.run_id}")
        try:
            record = await asyncio.shield(child.task)
        except asyncio.CancelledError:  # the caller is stopped, or its group timed out or failed
            await self.stop(child.record.run_id, scope.cancel_cause())
            raise
        return nested_outputs(name, record)

    async def prepare_nested(self, parent: Execution, name: str, args: dict[str, Any], depth: int) -> Execution:
        """The run a seq_call of `parent` calls, prepared (saved, said started) but not begun; a
        ToolError saying why it cannot be (the Temporal executor runs it as a child workflow)."""
        if self.resolve is None:
            raise ToolError("seq_call is not available here")
        if depth > MAX_DEPTH:
            raise ToolError(N_("seq_call is nested more than {depth} deep: is a sequence calling itself?").format(
                depth=MAX_DEPTH))
        try:
            sequence, group = await self.resolve(name)
        except LookupError as exc:
            raise ToolError(str(exc)) from None
        try:
            return await self._prepare(sequence, args, group, depth=depth, parent=parent.record.run_id)
        except InvalidSequenceError as exc:  # over the size limits
            raise ToolError(exc.errors[0].message) from None
        except ValueError as exc:
            raise ToolError(str(exc)) from None


def nested_outputs(name: str, record: RunRecord) -> Any:
    """What a seq_call of `name` gives back from the run it called: its outputs, or a ToolError."""
    if record.status not in ("succeeded", "degraded"):
        raise ToolError(N_("'{name}' ended {status}: {error}").format(name=name, status=record.status,
                                                                      error=record.error))
    return record.outputs
