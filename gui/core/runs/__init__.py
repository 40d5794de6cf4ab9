"""Running sequences: what the door asks of an executor (`Executor`) and the runner that is one (groups in
order, a group's tools side by side), one tool call, run records, resume, schedules, orphans left by a
dead app, and run ids as people write them.
"""

from gui.core.runs.execution import Execution, Origin, copy_record
from gui.core.runs.executor import Executor
from gui.core.runs.offload import off_loop
from gui.core.runs.orphans import ProcessControl, interrupt
from gui.core.runs.records import (
    FINISHED_RUN,
    GroupRecord,
    LogLine,
    ProcessInfo,
    RunFilter,
    RunRecord,
    RunStatus,
    RunStore,
    ToolRecord,
    run_fields,
)
from gui.core.runs.resume import ResumeRefused, plan_resume, refusal_for_status
from gui.core.runs.run_ids import MAX_CANDIDATES, AmbiguousRunIdError, can_be_prefix, pick, short_id
from gui.core.runs.runner import Runner, paused_collection
from gui.core.runs.schedules import (
    Schedule,
    ScheduleInvalid,
    Scheduler,
    ScheduleStore,
    make_schedule,
    next_time,
)
from gui.core.runs.tool_call import CallScope

__all__ = [
    "AmbiguousRunIdError",
    "CallScope",
    "copy_record",
    "can_be_prefix",
    "Execution",
    "Executor",
    "FINISHED_RUN",
    "GroupRecord",
    "interrupt",
    "LogLine",
    "make_schedule",
    "MAX_CANDIDATES",
    "next_time",
    "off_loop",
    "Origin",
    "paused_collection",
    "pick",
    "plan_resume",
    "ProcessControl",
    "ProcessInfo",
    "refusal_for_status",
    "ResumeRefused",
    "run_fields",
    "RunFilter",
    "Runner",
    "RunRecord",
    "RunStatus",
    "RunStore",
    "Schedule",
    "ScheduleInvalid",
    "Scheduler",
    "ScheduleStore",
    "short_id",
    "ToolRecord",
]
