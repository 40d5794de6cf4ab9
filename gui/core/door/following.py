"""A caller following the runs it started: their events, and those of every run they call.

`seqdesk run`, `call` over MCP and the remote door pass on what happens inside a run, including what
waits for a person inside a run it called through `seq_call`, so the caller can show it.
"""

from __future__ import annotations

from gui.core.door.operations import EventListener
from gui.core.events import Event, RunStarted


class RunFollower:
    """Passes on the events of the runs it follows and of every run they call through `seq_call`
    (their requests for a person too): a call's caller must see what waits for a person inside it."""

    def __init__(self, on_event: EventListener) -> None:
        self.on_event = on_event
        self.run_ids: set[str] = set()
        self._early: list[Event] = []  # events of a run started before its id was known here

    def follow(self, run_id: str) -> None:
        self.run_ids.add(run_id)
        early, self._early = self._early, []
        for event in early:
            self(event)

    def __call__(self, event: Event) -> None:
        if not self.run_ids:
            self._early.append(event)
            return
        if isinstance(event, RunStarted) and event.parent in self.run_ids:
            self.run_ids.add(event.run_id or "")
        if event.run_id in self.run_ids:
            self.on_event(event)


__all__ = ["RunFollower"]
