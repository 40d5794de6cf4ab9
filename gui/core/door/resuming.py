"""Resuming a run: its next attempt, a new run that keeps what succeeded (`gui.core.runs.resume` plans
it), started once however many ask at once; on a store several processes share, the old run names its
next attempt in a conditional write first, so two processes never both resume it.
"""

from __future__ import annotations

import asyncio

from gui.core.door.catalog import Catalog
from gui.core.door.documents import NotFoundError
from gui.core.errors import Conflict
from gui.core.runs import (
    Executor,
    Origin,
    ResumeRefused,
    RunRecord,
    RunStore,
    new_run_id,
    plan_resume,
    refusal_for_status,
)
from gui.core.sequences import run_problem, signature_of


class Resumes:
    """The door's resumes (`Engine.resume`): one at a time, so a run is resumed once."""

    def __init__(self, runner: Executor, runs: RunStore, catalog: Catalog) -> None:
        self.runner = runner
        self.runs = runs
        self.catalog = catalog
        self._lock = asyncio.Lock()

    async def resume(self, run_id: str) -> RunRecord:
        """Start the next attempt of a failed, interrupted or stopped run and return at once: a new
        run naming it (`resumed_from`), keeping what succeeded (see `gui.core.runs.resume`). NotFoundError
        for an unknown run, ResumeRefused (one sentence) when it cannot be resumed."""
        async with self._lock:
            if self.runner.snapshot(run_id) is not None:
                raise ResumeRefused(f"run {run_id} is still running: stop it first, or wait for its end")
            record = await self.runs.get(run_id)
            if record is None:
                raise NotFoundError(f"there is no run {run_id}")
            why = refusal_for_status(record)
            if why is not None:
                raise ResumeRefused(why)
            name = record.target or record.sequence
            try:
                sequence, group = await self.catalog.resolve(name)
            except NotFoundError:
                raise ResumeRefused(f"'{name}' is not saved any more, so run {run_id} cannot be resumed") from None
            groups = (group,) if group is not None else sequence.groups
            inputs = dict(group.in_) if group is not None else dict(signature_of(sequence).inputs)
            plan = plan_resume(record, groups, inputs)
            too_large = run_problem(groups)  # saved before there were size limits: too large to run
            if too_large is not None:
                raise ResumeRefused(f"run {run_id} cannot be resumed: {too_large.message}")
            # The old run names its next attempt before that attempt is saved: on a store several
            # processes share, this write is conditional, and a resume that loses it leaves nothing behind.
            new_id = record.resumed_by = new_run_id()
            try:
                await self.runs.save(record)
            except Conflict:
                stored = await self.runs.get(run_id)
                why = refusal_for_status(stored) if stored is not None else None
                raise ResumeRefused(why or f"run {run_id} was resumed already, by another SeqDesk process") from None
            try:
                new = await self.runner.start(sequence, plan.args, group=group,
                                              origin=Origin(plan=plan, run_id=new_id))
            except BaseException:  # the new attempt was not saved: the old run can be resumed again
                record.resumed_by = None
                await asyncio.shield(self._unmark(record))
                raise
        return new

    async def _unmark(self, record: RunRecord) -> None:
        try:
            await self.runs.save(record)
        except Exception:  # the store is away (that is why the start failed): the mark stays, naming no run
            pass
