"""Commands left running by an app that died, found and ended at the next start-up.

A tool that starts a process records it in the run's record before the process may act
(`ToolRecord.process`). At start-up every run the dead app left running is interrupted, and each of
its processes still alive is killed and recorded as such. The processes themselves are reached
through a port (`ProcessControl`): the operating system in the app (`gui.tools.processes`), a fake
in the core's tests.
"""

from __future__ import annotations

from typing import Protocol

from gui.core.records import ProcessInfo, RunRecord

KILLED = "killed at start-up: the app had stopped"
INTERRUPTED = "interrupted: the app stopped"


class ProcessControl(Protocol):
    def alive(self, process: ProcessInfo) -> bool:
        """Whether that very process (not a later one with its pid) still runs."""
        ...

    def kill(self, process: ProcessInfo) -> None:
        """End it and everything it started (its process group), at once."""
        ...


def interrupt(record: RunRecord, processes: ProcessControl | None) -> int:
    """Mark a run the dead app left running as interrupted, killing its processes still alive;
    how many were killed."""
    killed = 0
    record.status = "interrupted"
    record.error = "the app stopped while this run was going on"
    for group in record.groups:
        if group.status == "running":
            group.status, group.reason = "failed", INTERRUPTED
        for tool in group.tools:
            if tool.status not in ("running", "waiting", "queued") or group.status == "waiting":
                continue
            if tool.process is not None and processes is not None and processes.alive(tool.process):
                processes.kill(tool.process)
                killed += 1
                tool.status, tool.error = "cancelled", KILLED
            else:
                tool.status, tool.error = "cancelled", INTERRUPTED
    record.finished_at = record.finished_at or record.created_at
    return killed
