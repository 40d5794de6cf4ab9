"""The Runs page's list: filters (status, sequence), a search box, the reason a run ended, paging.

Every view is one query of the store (`run_page`): fifty runs and how many match in all, so a year
of history costs what one page does. The list stays current while runs start and end (one batched
subscription), on the page the person is looking at.
"""

from __future__ import annotations

import math
import time
from typing import Any, Protocol

from nicegui import ui

from gui.core.door import EventSource, Operations
from gui.core.events import Event
from gui.core.runs import RunRecord, RunStatus
from gui.i18n import N_, _, format_number, ngettext
from gui.ui.components.run.resume import add_resume_column, resumable
from gui.ui.components.run.status import LOOKS, clock_words, duration_words, run_state, waiting_tools
from gui.ui.live import live_events
from gui.wording.outcomes import end_words

PAGE_SIZE = 50
STATUS_CHOICES: dict[str, str] = {"all": N_("Any status"), "running": N_("Running"), "succeeded": N_("Succeeded"),
                                  "failed": N_("Failed"), "degraded": N_("Degraded"), "stopped": N_("Stopped"),
                                  "interrupted": N_("Interrupted")}
ANY_SEQUENCE = "\x00any"
COLUMNS = [
    {"name": "status", "label": N_("Status"), "field": "word", "align": "left"},
    {"name": "sequence", "label": N_("Sequence"), "field": "sequence", "align": "left"},
    {"name": "started", "label": N_("Started"), "field": "started", "align": "left"},
    {"name": "duration", "label": N_("Duration"), "field": "duration", "align": "right"},
    {"name": "reason", "label": N_("What happened"), "field": "reason", "align": "left",
     "classes": "reason-cell", "style": "max-width: 28rem; white-space: normal"},
]
STATUS_CELL = r"""
<q-td :props="props">
  <div class="row items-center no-wrap" style="gap: 6px">
    <q-spinner v-if="props.row.icon === 'spinner'" :class="props.row.colour" size="1.2em" />
    <q-icon v-else :name="props.row.icon" :class="props.row.colour" size="1.2em" />
    <span :class="props.row.colour" class="text-weight-medium">{{ props.row.word }}</span>
  </div>
</q-td>
"""
SEQUENCE_CELL = r"""
<q-td :props="props">
  <a :href="'/runs/' + props.row.run_id" class="text-primary" @click.stop>{{ props.value }}</a>
</q-td>
"""


def reason_words(record: RunRecord) -> str:
    """Why the run ended as it did, in a line ("" for a run that did what it should)."""
    if record.status == "running":
        waiting = waiting_tools(record)
        return _("Waiting for you to answer {tool}").format(tool=waiting[0].tool) if waiting else ""
    if record.status == "succeeded":
        return ""
    if record.cause is not None and record.status in ("stopped", "interrupted"):
        return end_words(record.status, record.error, record.cause)  # who or what stopped it, never guessed
    for group in record.groups:
        for tool in group.tools:
            if tool.denied:
                return (_("Not approved: {tool} ({why})").format(tool=tool.tool, why=_line(tool.error)) if tool.error
                        else _("Not approved: {tool}").format(tool=tool.tool))
            if tool.timed_out:
                return _("Timed out: {tool} ran out of time in {group}").format(tool=tool.tool, group=group.name)
    if record.error:
        return _line(end_words(record.status, record.error, None))
    for group in record.groups:
        if group.status in ("failed", "degraded") and group.reason:
            return f"{group.name}: {_line(group.reason)}"
        for tool in group.tools:
            if tool.status in ("failed", "degraded") and (tool.error or tool.reason):
                return f"{tool.tool}: {_line(tool.error or tool.reason or '')}"
    return _("No reason was kept (its record shows each step)")


def count_words(total: int, filtered: bool) -> str:
    """"3 runs", or with filters "1 run matches" / "3 runs match"; "" for none (the list says so)."""
    if not total:
        return ""
    count = format_number(total)
    if filtered:
        return ngettext("{count} run matches", "{count} runs match", total).format(count=count)
    return ngettext("{count} run", "{count} runs", total).format(count=count)


def _line(text: str, limit: int = 140) -> str:
    first = " ".join(text.split())
    return first if len(first) <= limit else first[: limit - 1] + "…"


def history_row(record: RunRecord, now: float) -> dict[str, Any]:
    look = LOOKS.get(run_state(record), LOOKS["pending"])
    end = record.finished_at if record.finished else now
    seconds = (end or now) - record.created_at
    return {"run_id": record.run_id, "word": look.word, "icon": look.icon, "colour": look.text,
            "sequence": record.sequence + (f" › {record.target}" if record.target else ""),
            "started": clock_words(record.created_at), "seconds": round(seconds, 3),
            "duration": duration_words(seconds) if record.finished
            else _("{time} so far").format(time=duration_words(seconds)),
            "reason": reason_words(record), "resumable": resumable(record)}


class RunsEngine(Operations, EventSource, Protocol):
    """The door, and the events of the runs shown (the engine is both)."""


class RunsHistory(ui.column):
    """Filters, the table of one page, and the pager; `await history.load()` once built."""

    def __init__(self, engine: RunsEngine, sequences: list[str]) -> None:
        super().__init__()
        self.classes("w-full gap-3")
        self.engine = engine
        self.status = "all"
        self.sequence = ANY_SEQUENCE
        self.text = ""
        self.page = 1
        self.total = 0
        with self:
            with ui.row().classes("w-full items-center gap-3 flex-wrap"):
                ui.select({k: _(v) for k, v in STATUS_CHOICES.items()}, value="all", label=_("Status"),
                          on_change=self._status_changed).props(
                    "outlined dense options-dense").classes("w-full sm:w-44").mark("runs-status")
                choices = {ANY_SEQUENCE: _("Any sequence"), **{name: name for name in sequences}}
                ui.select(choices, value=ANY_SEQUENCE, label=_("Sequence"), on_change=self._sequence_changed).props(
                    "outlined dense options-dense").classes("w-full sm:w-56").mark("runs-sequence")
                ui.input(_("Search"), placeholder=_("Words in the sequence's name"),
                         on_change=self._text_changed).props("outlined dense clearable debounce=300").classes(
                    "w-full sm:w-64").mark("runs-search")
                ui.space()
                self.count = ui.label("").classes("text-sm text-gray-600 dark:text-gray-400").mark("runs-count")
            self.empty = ui.row().classes("items-center gap-2")
            columns = [{**c, "label": _(c["label"])} for c in COLUMNS]
            self.table = ui.table(columns=columns, rows=[], row_key="run_id").classes(
                "w-full cursor-pointer runs-table seqdesk-runs-table").props(
                "flat bordered hide-bottom :pagination='{rowsPerPage: 0}'").mark("runs-table")
            self.table.add_slot("body-cell-status", STATUS_CELL)
            self.table.add_slot("body-cell-sequence", SEQUENCE_CELL)
            add_resume_column(self.table, engine)
            self.table.on("rowClick", lambda e: ui.navigate.to(f"/runs/{e.args[1]['run_id']}"))
            self.pager = ui.row().classes("w-full items-center justify-between flex-wrap gap-2")
        live_events(engine, self._on_events, types=("run.",), interval=1.0)

    def _filtered(self) -> bool:
        return self.status != "all" or self.sequence != ANY_SEQUENCE or bool(self.text)

    async def load(self) -> None:
        status: RunStatus | None = None if self.status == "all" else self.status  # type: ignore[assignment]
        page = await self.engine.run_page(status=status, sequence=None if self.sequence == ANY_SEQUENCE else
                                          self.sequence, text=self.text or None, limit=PAGE_SIZE,
                                          offset=(self.page - 1) * PAGE_SIZE)
        pages = max(1, math.ceil(page.total / PAGE_SIZE))
        if self.page > pages:  # the list shrank under the person: show its last page
            self.page = pages
            await self.load()
            return
        self.total = page.total
        now = time.time()
        self.table.rows = [history_row(r, now) for r in page.items]
        self.table.update()
        self.table.set_visibility(bool(page.items))
        self.empty.clear()
        with self.empty:
            if not page.items and self._filtered():
                ui.label(_("No run matches these filters.")).classes("text-gray-600 dark:text-gray-400").mark(
                    "runs-none-match")
            elif not page.items:
                ui.label(_("No runs yet.")).classes("text-gray-600 dark:text-gray-400")
                ui.link(_("Start one on the Run page"), "/run")
        self.count.set_text(count_words(page.total, self._filtered()))
        self.pager.clear()
        if page.total:
            start = (self.page - 1) * PAGE_SIZE
            with self.pager:
                ui.label(_("{first}–{last} of {total} runs").format(
                    first=format_number(start + 1), last=format_number(start + len(page.items)),
                    total=format_number(page.total))).classes(
                    "text-sm text-gray-600 dark:text-gray-400").mark("runs-range")
                if pages > 1:
                    ui.pagination(1, pages, direction_links=True, value=self.page,
                                  on_change=self._page_changed).props("max-pages=7 boundary-numbers").mark(
                        "runs-pager")

    async def _status_changed(self, event: Any) -> None:
        self.status, self.page = str(event.value or "all"), 1
        await self.load()

    async def _sequence_changed(self, event: Any) -> None:
        self.sequence, self.page = str(event.value or ANY_SEQUENCE), 1
        await self.load()

    async def _text_changed(self, event: Any) -> None:
        self.text, self.page = str(event.value or "").strip(), 1
        await self.load()

    async def _page_changed(self, event: Any) -> None:
        if event.value and int(event.value) != self.page:
            self.page = int(event.value)
            await self.load()

    async def _on_events(self, events: list[Event]) -> None:
        await self.load()
