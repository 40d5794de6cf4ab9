"""Commands left running by an app that died, found and ended at the next start-up.

A tool that starts a process records it in the run's record before the process may act
(`ToolRecord.process`). At start-up every run the dead app left running is interrupted, and each of
its processes still alive is killed and recorded as such. The processes themselves are reached
through a port (`ProcessControl`): the operating system in the app (`gui.tools.processes`), a fake
in the core's tests. On a team's store, a run whose process died after someone pressed Stop for it is
ended as stopped by them instead (`stop_left`): they asked for it.
"""

from __future__ import annotations

from typing import Protocol

from gui.core.causes import CAUSES, EndCause
from gui.core.runs.records import ProcessInfo, RunRecord

KILLED = "killed at start-up: the app had stopped"
INTERRUPTED = "interrupted: the app stopped"
NOT_RUN = "not run: the app stopped"


class ProcessControl(Protocol):
    def alive(self, process: ProcessInfo) -> bool:
        """Whether that very process (not a later one with its pid) still runs."""
        ...

    def kill(self, process: ProcessInfo) -> None:
        """End it and everything it started (its process group), at once."""
        ...


def interrupt(record: RunRecord, processes: ProcessControl | None) -> int:
    """Mark a run the dead app left running as interrupted (cause `app_stopped`), killing its processes
    still alive; how many were killed. It ended at its last recorded event; what had not started is
    "not run", never left queued."""
    killed = 0
    record.status, record.cause = "interrupted", "app_stopped"
    record.error = "the app stopped while this run was going on"
    for group in record.groups:
        if group.status == "running":
            group.status, group.reason, group.cause = "failed", INTERRUPTED, "app_stopped"
        elif group.status == "waiting":
            group.status, group.reason, group.cause = "cancelled", NOT_RUN, "app_stopped"
        for tool in group.tools:
            if tool.status == "queued":
                tool.status, tool.reason, tool.cause = "cancelled", NOT_RUN, "app_stopped"
            elif tool.status in ("running", "waiting"):
                if tool.process is not None and processes is not None and processes.alive(tool.process):
                    processes.kill(tool.process)
                    killed += 1
                    tool.status, tool.error = "cancelled", KILLED
                else:
                    tool.status, tool.error = "cancelled", INTERRUPTED
                tool.cause = "app_stopped"
                tool.finished_at = tool.last_event_at()  # as far as its record goes
        if group.cause == "app_stopped" and group.started_at is not None:
            group.finished_at = max([group.started_at, *(t.finished_at for t in group.tools if t.finished_at)])
    record.finished_at = record.finished_at or record.last_event_at()
    return killed


def stop_left(record: RunRecord, cause: EndCause, by: str | None) -> None:
    """End a run whose process died after a Stop was claimed for it as that Stop would have: stopped
    for its cause (a person's Stop, pressed where `by` says), not interrupted, at its last recorded
    event; what had not ended is ended for that cause. The commands it had started ran on the dead
    process's machine and are not killed here."""
    at = record.last_event_at()
    record.status, record.cause, record.stopped_by = "stopped", cause, by
    record.error = CAUSES[cause].error
    record.settle("stopped", "the run was stopped", at, cause)
    record.finished_at = record.finished_at or at
