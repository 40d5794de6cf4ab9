"""Run history (`/runs`) and one run's full record (`/runs/{run_id}`).

The list (`RunsHistory`) is one page of a store query at a time, with filters, a search box and the
reason each run ended, and keeps itself current while runs start and end. The detail page
is the run's record for a person: the args as sent, each group and tool with its result or error
and attempts, the timeline, the requests it raised, and "Run again with the same inputs".
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from nicegui import ui

from gui.core.door import NotFoundError
from gui.core.people import RUNNER
from gui.core.runs import AmbiguousRunIdError
from gui.core.sequences import DslError, RunArgsError
from gui.i18n import DATA, _
from gui.ui.components.run.agent_left import agent_left_note
from gui.ui.components.run.ambiguous import ambiguous_notice
from gui.ui.components.run.group_list import GroupList
from gui.ui.components.run.json import JsonBlock
from gui.ui.components.run.outputs import RunOutputs
from gui.ui.components.run.requests import RunRequests
from gui.ui.components.run.resume import ResumeBar
from gui.ui.components.run.status import StatusChip, clock_words, duration_words, run_state
from gui.ui.components.run.stopped_by import stopped_by_note
from gui.ui.components.run.timeline import RunTimeline
from gui.ui.components.runs_history import RunsHistory
from gui.ui.signed_in import may, starter
from gui.ui.theme import frame
from gui.wording.outcomes import run_error_words

if TYPE_CHECKING:
    from gui.context import AppContext

async def history_page(ctx: AppContext) -> None:
    engine = ctx.engine
    with frame(_("Runs"), ctx):
        ui.label(_("Runs")).classes("text-2xl font-semibold")
        names = sorted(str(s.get("name")) for s in await engine.list_sequences() if s.get("name"))
        history = RunsHistory(engine, names)
        await history.load()


async def detail_page(ctx: AppContext, run_id: str) -> None:
    engine = ctx.engine
    ambiguous: AmbiguousRunIdError | None = None
    try:
        record = await engine.find_run(run_id)  # the start of an id, as screens show it, opens it too
    except AmbiguousRunIdError as exc:
        record, ambiguous = None, exc
    with frame(_("Runs"), ctx):
        ui.link(_("← All runs"), "/runs").classes("text-sm")
        if ambiguous is not None:
            ambiguous_notice(ambiguous, base="/runs")
            return
        if record is None:
            ui.label(_("There is no run {id}.").format(id=run_id)).classes("text-gray-700 dark:text-gray-300")
            return
        if record.run_id != run_id:  # a short id: the address names the whole one
            ui.run_javascript(f"history.replaceState(history.state, '', {json.dumps('/runs/' + record.run_id)})")
        now = time.time()
        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            with ui.row(wrap=False).classes("w-full items-center gap-3"):
                ui.label(record.sequence + (f" › {record.target}" if record.target else "")).classes(
                    f"text-xl font-semibold truncate {DATA}")
                StatusChip(run_state(record), size="lg")
                ui.space()
                if not record.finished:
                    ui.link(_("Watch it live"), f"/run/{record.run_id}").mark("watch-live")

                async def run_again() -> None:
                    if not may(RUNNER):
                        return
                    try:
                        again = await engine.start(record.target or record.sequence, record.args,
                                                   started_by=starter())
                    except (RunArgsError, NotFoundError, DslError) as exc:
                        reason = exc.errors[0].text(_) if isinstance(exc, DslError) else exc
                        ui.notify(_("Could not run it again: {reason}").format(reason=reason), type="negative",
                                  multi_line=True)
                        return
                    ui.navigate.to(f"/run/{again.run_id}")

                ui.button(_("Run again with the same inputs"), icon="replay", on_click=run_again).props(
                    "outline no-caps").mark("run-again")
            end = record.finished_at if record.finished else now
            took = duration_words((end or now) - record.created_at)
            ui.label((_("Run {id} · started {when} · took {time}") if record.finished
                      else _("Run {id} · started {when} · running for {time}")).format(
                         id=record.run_id, when=clock_words(record.created_at), time=took)).classes(
                             "text-sm "
                             "text-gray-600 dark:text-gray-400")
            if record.error:
                ui.label(run_error_words(record.error)).classes("text-red-700 dark:text-red-400 break-words").mark(
                    "run-error")
            agent_left_note(record)
            stopped_by_note(record)
            ResumeBar(engine, record)
        ui.label(_("Inputs it was run with")).classes("text-lg font-semibold")
        if record.args:
            JsonBlock(record.args).mark("run-args")
        else:
            ui.label(_("None: this sequence takes no inputs.")).classes("text-gray-600 dark:text-gray-400")
        if record.finished:
            RunOutputs().show(record.outputs, finished=True)
        ui.label(_("Steps")).classes("text-lg font-semibold")
        GroupList(record, detail=True, now=now, run_of=engine.get_run)
        ui.label(_("Timeline")).classes("text-lg font-semibold")
        RunTimeline(record, now)
        ui.label(_("Requests it raised")).classes("text-lg font-semibold")
        raised = list(reversed((await engine.interaction_page(run_id=run_id, limit=1000)).items))
        RunRequests(raised)

