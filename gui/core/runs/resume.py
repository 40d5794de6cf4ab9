"""Resuming a run that did not finish well: what can be kept from it, and when it must be refused.

A resumed run is a new run (`attempt` 2, 3, …) that names the run it continues (`resumed_from`);
the old record gets `resumed_by`, so each attempt stays as it happened and a run is resumed once.
The new run keeps the groups that succeeded (or were skipped) before the first group that did not,
with their typed outputs from the record, and within that first group the tools that succeeded:
nothing that succeeded runs twice. Everything else runs again, so a request the crash cancelled is
asked again. Kept groups must be exactly as they ran (`fingerprint`); otherwise the resume is
refused with the name of the group that changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gui.core.errors import Conflict
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord
from gui.core.sequences import Group, RunArgsError, SlotType, check_args, group_fingerprint, matches_type

RESUMABLE = frozenset({"failed", "interrupted", "stopped"})
KEPT_GROUP = frozenset({"succeeded", "skipped"})


class ResumeRefused(Conflict):
    """The run cannot be resumed (it succeeded, still runs, was resumed already, its sequence changed);
    the message is one sentence saying why and what to do instead."""

    code = "resume-refused"


@dataclass
class ResumePlan:
    """What a resumed run starts from: the old run, the groups it keeps, the context they give."""

    previous: RunRecord
    kept: list[GroupRecord]  # copies of the groups kept, in order
    context: dict[str, Any]
    tools: dict[int, ToolRecord] = field(default_factory=dict)  # of the first group run again: kept tools
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def first(self) -> int:
        """The index of the first group that runs again."""
        return len(self.kept)


def refusal_for_status(record: RunRecord) -> str | None:
    """Why a run in this state cannot be resumed; None when it can."""
    if record.status == "running":
        return f"run {record.run_id} is still running: stop it first, or wait for its end"
    if record.status in ("succeeded", "degraded"):
        return f"run {record.run_id} {record.status}: there is nothing to resume (run it again instead)"
    if record.resumed_by:
        return (f"run {record.run_id} was resumed already, as run {record.resumed_by}: "
                f"resume that one if it did not finish")
    if record.depth > 0:
        return (f"run {record.run_id} was started by another run (through seq_call): resume the run that "
                "called it")
    if record.status not in RESUMABLE:
        return f"run {record.run_id} ended {record.status} and cannot be resumed"
    if any(g.fingerprint is None for g in record.groups):
        return (f"run {record.run_id} was recorded by an earlier SeqDesk that did not keep what resuming "
                "needs: run it again instead")
    return None


def plan_resume(record: RunRecord, groups: tuple[Group, ...], inputs: dict[str, SlotType]) -> ResumePlan:
    """The plan for resuming `record` with the sequence's groups as saved now; ResumeRefused if it
    cannot be resumed."""
    why = refusal_for_status(record)
    if why is not None:
        raise ResumeRefused(why)
    try:
        args = check_args(inputs, record.args)
    except RunArgsError as exc:
        raise ResumeRefused(f"the inputs of '{record.target or record.sequence}' changed since run "
                            f"{record.run_id}: {'; '.join(exc.problems)}") from None
    context = dict(args)
    kept: list[GroupRecord] = []
    for old in record.groups:
        if old.status not in KEPT_GROUP:
            break
        now = groups[old.index] if old.index < len(groups) else None
        if now is None or now.name != old.name:
            raise ResumeRefused(f"the group '{old.name}' (group {old.index + 1}) is no longer in the sequence "
                                f"as it was in run {record.run_id}: run it again instead")
        if group_fingerprint(now) != old.fingerprint:
            raise ResumeRefused(f"the group '{old.name}' (group {old.index + 1}) changed since run "
                                f"{record.run_id}, so its results cannot be kept: run the sequence again instead")
        for slot, value in old.outputs.items():
            slot_type = now.out.get(slot)
            if slot_type is None or (slot_type is not SlotType.ARRAY and not matches_type(value, slot_type)):
                raise ResumeRefused(f"the output '{slot}' of group '{old.name}' in run {record.run_id} does not "
                                    "fit the group any more: run the sequence again instead")
            context[slot] = value
        copy = GroupRecord.model_validate(old.model_dump(by_alias=True))
        copy.reused_from = old.reused_from or record.run_id
        kept.append(copy)
    plan = ResumePlan(previous=record, kept=kept, context=context, args=args)
    if plan.first < len(record.groups) and plan.first < len(groups):
        old = record.groups[plan.first]
        if old.name == groups[plan.first].name and old.fingerprint == group_fingerprint(groups[plan.first]):
            for tool in old.tools:
                if tool.status == "succeeded":
                    copy_tool = ToolRecord.model_validate(tool.model_dump(by_alias=True))
                    copy_tool.reused_from = tool.reused_from or record.run_id
                    copy_tool.process = None
                    plan.tools[tool.index] = copy_tool
    return plan
