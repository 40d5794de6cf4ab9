"""Resume: go on with a run that failed, stopped or was interrupted, keeping what succeeded.

`ResumeBar` sits on a run's page: the attempt this run is (and what it kept from the one before), the
attempt that resumed it, or a Resume button when it can be resumed; it follows the run's end, so
the button appears when a watched run fails. `add_resume_column` puts the same button in the runs
list. Both only call `engine.resume` (the door): the new attempt asks again for every approval.
"""

from __future__ import annotations

import html
from typing import Any

from nicegui import ui

from gui.core.door import NotFoundError, Operations
from gui.core.events import Event
from gui.core.people import RUNNER
from gui.core.runs import ResumeRefused, RunRecord, refusal_for_status
from gui.i18n import N_, _
from gui.ui.components.run.kept import kept_words
from gui.ui.components.run.link import RunLink
from gui.ui.live import live_events
from gui.ui.signed_in import may

EXPLAIN = N_("Resume goes on from the first step that did not succeed. The steps that succeeded are kept "
             "and not run again; everything else runs again and asks you again where it needs to.")


def resumable(record: RunRecord) -> bool:
    return record.finished and refusal_for_status(record) is None


async def resume_and_open(engine: Operations, run_id: str) -> None:
    """Resume `run_id` and open the new attempt; a refusal is shown as the engine's sentence."""
    if not may(RUNNER):
        return
    try:
        new = await engine.resume(run_id)
    except (ResumeRefused, NotFoundError) as exc:
        ui.notify(_("Could not resume: {reason}").format(reason=exc), type="negative", multi_line=True)
        return
    ui.navigate.to(f"/run/{new.run_id}")


class ResumeBar(ui.row):
    def __init__(self, engine: Operations, record: RunRecord) -> None:
        super().__init__(wrap=True)
        self.classes("w-full items-center gap-3")
        self.engine = engine
        self.run_id = record.run_id
        self.show(record)
        if not record.finished:
            live_events(engine, self._on_events, types=("run.finished",), interval=0.5)

    async def _on_events(self, events: list[Event]) -> None:
        if any(e.run_id == self.run_id for e in events):
            record = await self.engine.get_run(self.run_id)
            if record is not None:
                self.show(record)

    def show(self, record: RunRecord) -> None:
        self.clear()
        with self:
            if record.resumed_from:
                with ui.row().classes("items-center gap-1").mark("attempt"):
                    ui.icon("history", size="sm").classes("text-gray-600 dark:text-gray-400")
                    ui.label(_("Attempt {n}: resumes").format(n=record.attempt)).classes(
                        "text-sm text-gray-700 dark:text-gray-300")
                    RunLink(record.resumed_from, f"/runs/{record.resumed_from}", self.engine.get_run).classes(
                        "text-sm").mark("resumes-link")
                    ui.label(f"· {kept_words(record)}").classes("text-sm text-gray-700 dark:text-gray-300").mark(
                        "kept-steps")
            if record.resumed_by:
                with ui.row().classes("items-center gap-1").mark("resumed-by"):
                    ui.label(_("Resumed as")).classes("text-sm text-gray-700 dark:text-gray-300")
                    RunLink(record.resumed_by, f"/runs/{record.resumed_by}", self.engine.get_run).classes("text-sm") \
                        .mark("resumed-by-link")
            elif resumable(record):
                first = next((g for g in record.groups if g.status not in ("succeeded", "skipped")), None)
                if first is not None:
                    done = [g.name for g in record.groups[:first.index]]
                    words = ((_("Resume goes on from group {number} ({name}) and keeps what {kept} did") if done
                              else _("Resume goes on from group {number} ({name})")).format(
                                 number=first.index + 1, name=first.name, kept=", ".join(done))
                             + _("; what runs again asks you again where it needs to."))
                    ui.label(words).classes("text-sm text-gray-700 dark:text-gray-300").mark("resume-plan")
                ui.space()
                button = ui.button(_("Resume"), icon="play_circle",
                                   on_click=lambda: resume_and_open(self.engine, self.run_id)).props(
                    "color=primary no-caps").mark("resume")
                button.tooltip(_(EXPLAIN))


_RESUME_CELL = r"""
<q-td :props="props">
  <q-btn v-if="props.row.resumable" dense flat no-caps color="primary" icon="play_circle" label="{label}"
         aria-label="{aria}" @click.stop="$parent.$emit('resume', props.row.run_id)" />
</q-td>
"""


def add_resume_column(table: ui.table, engine: Operations) -> None:
    """A Resume button on each row that can be resumed (rows carry `resumable`, see `resumable`)."""
    if not any(c.get("name") == "resume" for c in table.columns):
        table.columns = [*table.columns, {"name": "resume", "label": "", "field": "resumable", "align": "right"}]
    table.add_slot("body-cell-resume", _RESUME_CELL.replace("{label}", html.escape(_("Resume"))).replace(
        "{aria}", html.escape(_("Resume this run"))))

    async def on_resume(event: Any) -> None:
        run_id = event.args if isinstance(event.args, str) else None
        if run_id:
            await resume_and_open(engine, run_id)

    table.on("resume", on_resume)
