"""What one tool call needs from its run and group (`CallScope`), made by the runner for each group and
handed to every call of it (`gui.core.runs.tool_call`) and to the port a call asks through
(`gui.core.runs.observed`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from gui.core.causes import EndCause
from gui.core.runs.execution import Execution
from gui.core.runs.records import GroupRecord
from gui.core.runs.store import RunStore
from gui.core.sequences import Asking, Group


@dataclass(slots=True)
class CallScope:
    """What a tool call needs from its run and group. Nothing it holds refers back to it, so a
    finished run's scope goes with its last reference, never left for the garbage collector; and a
    waiting run keeps one small object here, not a closure per need."""

    run_id: str
    sequence_name: str
    group: Group
    group_record: GroupRecord
    args: dict[str, Any]
    deadline: float | None
    depth: int
    execution: Execution  # the run: what stops it, and how its record is saved
    runs: RunStore
    # Runs a saved sequence or group (seq_call): given the run and this scope, then the name, args and depth.
    call_sequence: Callable[..., Awaitable[Any]] | None
    sequence_identity: str | None = None  # of a saved sequence (`Sequence.identity`): rules name it
    aborting: bool = False  # a tool failed and the group's other tools are being cancelled
    # Who answers the requests of each of the group's steps (a step's own keys over the group's), by the
    # step's index: resolved once, as the scope is made, so that a call asking reads it, never works it out.
    asking: tuple[Asking | None, ...] = field(init=False)

    def __post_init__(self) -> None:
        group = self.group
        self.asking = tuple(group.asking if step.asking is None else step.asking.over(group.asking)
                            for step in group.tools)

    def save_soon(self) -> None:
        """Save the run's record in the background (a tool started waiting, or a tool that changes
        things ended)."""
        self.execution.checkpoint(self.runs, 0.0)

    async def save_now(self) -> None:
        """Save the run's record before going on (`Execution.save_now`)."""
        await self.execution.save_now(self.runs)

    def cancel_cause(self) -> EndCause | None:
        """What is cancelling the group's tools when they are cancelled (`gui.core.causes`): the run's
        stop, a failed tool, or the group's time limit; None: not known."""
        if self.execution.stopping:
            return self.execution.stop_cause
        if self.aborting:
            return "sibling_failed"
        return "group_timeout" if self.group.timeout_seconds is not None else None
