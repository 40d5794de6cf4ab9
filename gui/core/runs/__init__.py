"""Running sequences: what the door asks of an executor (`Executor`) and the runner that is one (groups in
order, a group's tools side by side), the decisions every executor takes (`decisions.py`), one tool call,
steps on hosts, run records, resume, schedules, orphans left by a dead app, and run ids as people write them.
"""

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
from gui.core.runs.execution import Execution, Origin, copy_record
from gui.core.runs.executor import Executor
from gui.core.runs.hosts import CALLED_AGAIN_ON, MAY_HAVE_RUN_ON, HostBook, HostCalls, HostInfo, HostState
from gui.core.runs.offload import off_loop
from gui.core.runs.orphans import ProcessControl, interrupt, stop_left
from gui.core.runs.records import (
    FINISHED_RUN,
    GroupRecord,
    LogLine,
    ProcessInfo,
    RunRecord,
    RunStatus,
    ToolRecord,
)
from gui.core.runs.resume import ResumeRefused, plan_resume, refusal_for_status
from gui.core.runs.run_ids import MAX_CANDIDATES, AmbiguousRunIdError, can_be_prefix, new_run_id, pick, short_id
from gui.core.runs.runner import Runner, nested_outputs, paused_collection
from gui.core.runs.schedules import (
    Schedule,
    ScheduleInvalid,
    Scheduler,
    ScheduleStore,
    make_schedule,
    next_time,
)
from gui.core.runs.stop_requests import RunStopRequests
from gui.core.runs.store import LeaseLost, RunFilter, RunStore, run_fields
from gui.core.runs.tool_call import AwaitedElsewhere

__all__ = [
    "CALLED_AGAIN_ON",
    "HostBook",
    "HostCalls",
    "HostInfo",
    "HostState",
    "MAY_HAVE_RUN_ON",
    "AmbiguousRunIdError",
    "AwaitedElsewhere",
    "CallScope",
    "copy_record",
    "can_be_prefix",
    "Execution",
    "Executor",
    "FINISHED_RUN",
    "group_aborted",
    "group_args",
    "group_timed_out",
    "GroupFailed",
    "GroupRecord",
    "interrupt",
    "stop_left",
    "LeaseLost",
    "LogLine",
    "make_schedule",
    "MAX_CANDIDATES",
    "nested_outputs",
    "new_run_id",
    "next_time",
    "not_run_after",
    "off_loop",
    "Origin",
    "paused_collection",
    "pick",
    "plan_resume",
    "ProcessControl",
    "ProcessInfo",
    "record_stopped",
    "refusal_for_status",
    "ResumeRefused",
    "run_fields",
    "run_goes_on",
    "RunFilter",
    "Runner",
    "RunRecord",
    "RunStatus",
    "RunStopRequests",
    "RunStore",
    "Schedule",
    "ScheduleInvalid",
    "Scheduler",
    "ScheduleStore",
    "short_id",
    "ToolRecord",
    "write_slots",
]
