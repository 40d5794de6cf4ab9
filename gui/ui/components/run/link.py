"""A link to a run, in words a person recognises: "run started 14:02" (its start, found once the link is
drawn), the run's id kept in its tooltip, so two runs of one sequence are still told apart."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from nicegui import background_tasks, ui

from gui.core.errors import SeqDeskError
from gui.core.runs import RunRecord, short_id
from gui.i18n import _
from gui.wording.requests import clock

RunOf = Callable[[str], Awaitable[RunRecord | None]]


def started_words(record: RunRecord) -> str:
    """"run started 14:02" (another day: "run started 3 Mar 14:02")."""
    return _("run started {time}").format(time=clock(int(record.created_at * 1000)))


class RunLink(ui.link):
    """`run_of` finds the run (the door's `get_run`); until it answers, when the run is not kept any
    more, or when it cannot be asked (the store or the team's server is away), the link says the run's
    short id, as before."""

    def __init__(self, run_id: str, target: str, run_of: RunOf | None, *, tip: str | None = None) -> None:
        super().__init__(_("run {id}").format(id=short_id(run_id)), target)
        self.run_id = run_id
        words = _("Run {id}").format(id=run_id)
        self.tooltip(f"{tip} ({words})" if tip else words)
        if run_of is not None:
            background_tasks.create(self._name(run_of), name=f"name run {run_id}")

    async def _name(self, run_of: RunOf) -> None:
        try:
            record = await run_of(self.run_id)
        except SeqDeskError:  # the store or the team's server is away: the short id stays, as it says
            return
        if record is not None and not self.is_deleted:
            self.set_text(started_words(record))


def remembered(run_of: RunOf) -> RunOf:
    """`run_of` asked once per run: a list of many links to the same runs (a page of the inbox's history)."""
    found: dict[str, asyncio.Task[RunRecord | None]] = {}

    async def once(run_id: str) -> RunRecord | None:
        if run_id not in found:
            found[run_id] = asyncio.ensure_future(run_of(run_id))
        return await asyncio.shield(found[run_id])

    return once
