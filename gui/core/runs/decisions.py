"""The decisions of a run, apart from how its tasks carry them out: both executors take them (the
in-process `Runner`, and the Temporal one, `gui.temporal.steps`, one activity per step).

Each reads and writes the run's live record (`Execution`): a group's inputs, and whether its
condition lets it run (`group_args`); what a group's time limit (`group_timed_out`), a failed tool of a
gathered group (`group_aborted`) or of a one-by-one group (`not_run_after`) leaves on the other tools;
the slots a group writes (`write_slots`); after a group, whether the run goes on (`run_goes_on`); a
stop written down (`record_stopped`). None of them publishes, saves or waits: the executor does, at
its own moments.
"""

from __future__ import annotations

import functools
from typing import Any

from gui.core.causes import CAUSES
from gui.core.errors import Failed
from gui.core.marks import N_
from gui.core.runs.execution import Execution
from gui.core.runs.records import GroupRecord
from gui.core.sequences import Group, OnError, SlotType, format_duration
from gui.core.sequences.conditions import Condition, ConditionEvalError, ConditionSyntaxError, evaluate, parse_condition


class GroupFailed(Failed):
    """The group failed as a whole (an input without a value, a condition that cannot be evaluated,
    its time limit): its message is the group's reason."""


@functools.lru_cache(maxsize=1024)
def _condition(text: str) -> Condition:
    """A group's `when`, parsed once per process (it was validated when the sequence was saved)."""
    return parse_condition(text)


def group_args(ex: Execution, group: Group, grec: GroupRecord) -> dict[str, Any] | None:
    """The group's inputs, or None when its condition is false (it is marked skipped);
    GroupFailed when an input has no value or the condition cannot be evaluated."""
    args: dict[str, Any] = {}
    for name in group.in_:
        if name not in ex.context:
            raise GroupFailed(N_("the input '{name}' has no value (the group that provides it did not run)")
                              .format(name=name))
        args[name] = ex.context[name]
    grec.args = args
    try:
        holds = evaluate(_condition(group.when), args)
    except (ConditionEvalError, ConditionSyntaxError) as exc:
        raise GroupFailed(N_("its condition `{when}` could not be evaluated: {reason}").format(
            when=group.when, reason=getattr(exc, "message", exc))) from None
    if not holds:
        grec.status = "skipped"
        grec.reason = f"its condition `{group.when}` is false"
        for trec in grec.tools:
            trec.status, trec.reason = "skipped", "the group's condition is false"
        return None
    return args


def group_timed_out(grec: GroupRecord, timeout: float) -> GroupFailed:
    """Mark the tools the time limit cut short; the group's failure to raise."""
    grec.timed_out = True
    for trec in grec.tools:
        if trec.status == "cancelled" or trec.status == "queued":
            trec.status = "failed" if trec.status == "cancelled" else "cancelled"
            trec.error = N_("the group's time limit ({limit}) ran out").format(limit=format_duration(timeout))
            trec.timed_out = True
    return GroupFailed(N_("timed out after {limit}").format(limit=format_duration(timeout)))


def group_aborted(grec: GroupRecord) -> None:
    """A tool of a gathered group failed: the others it cut short say so."""
    for trec in grec.tools:
        if trec.status in ("cancelled", "queued"):
            trec.status, trec.error = "cancelled", "cancelled: another tool of the group failed"
            trec.cause = "sibling_failed"


def not_run_after(grec: GroupRecord, index: int) -> None:
    """A tool of a one-by-one group failed: the tools after it are not run."""
    for later in grec.tools[index + 1:]:
        later.status, later.reason = "cancelled", "not run: an earlier tool of the group failed"


def write_slots(ex: Execution, group: Group, grec: GroupRecord) -> None:
    """The outputs of the group's tools that succeeded, into the run's slots and the group's record."""
    arrays: dict[str, list[Any]] = {}
    for call, trec in zip(group.tools, grec.tools, strict=True):
        if call.as_ is None or trec.status != "succeeded":
            continue
        if group.out.get(call.as_) is SlotType.ARRAY:
            arrays.setdefault(call.as_, []).append(trec.result)
        else:
            ex.context[call.as_] = grec.outputs[call.as_] = trec.result
    for slot, values in arrays.items():
        # one writer of an array slot may return a whole array: it is the slot's value
        writers = [c for c in group.tools if c.as_ == slot]
        value = values[0] if len(writers) == 1 and isinstance(values[0], list) else values
        ex.context[slot] = grec.outputs[slot] = value


def run_goes_on(ex: Execution, group: Group, grec: GroupRecord) -> bool:
    """After a group: whether the run goes on (False: it failed, and the record says so)."""
    if grec.status == "failed" and group.on_error is not OnError.CONTINUE:
        ex.record.status = "failed"
        ex.record.error = f"group '{group.name}' failed: {grec.reason}"
        return False
    if grec.status == "failed":
        ex.degraded = True
    return True


def record_stopped(ex: Execution) -> None:
    """The run was stopped: its record says so, with the cause (`Execution.stop_cause`)."""
    record = ex.record
    record.status = "stopped"
    record.cause = ex.stop_cause  # None only if something cancelled it without `stop`
    record.stopped_by = ex.stop_by
    record.error = CAUSES[ex.stop_cause].error if ex.stop_cause is not None else "the run was stopped"
