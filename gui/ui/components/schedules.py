"""The Schedules section of the Sequences page: saved sequences that run on their own.

Each schedule shows its sequence, how often, the inputs it runs with, when it runs next and how its
last run ended, with Pause / Go on and Delete. "Add a schedule" picks a sequence, how often (every so
many minutes or hours, or set times written the cron way) and its inputs; a mistake is shown at its
field (a text input left empty too: the schedule would run with nothing there) and nothing is saved.
Everything goes through the door (`engine.create_schedule`, …); the section follows changes made
elsewhere (the API) and the end of scheduled runs.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.core.causes import CAUSES
from gui.core.door import Engine
from gui.core.events import Event
from gui.core.runs import Schedule, ScheduleInvalid
from gui.core.sequences import format_duration, signature_of
from gui.i18n import DATA, ENGLISH, N_, _, current_language
from gui.ui.components.run.args_form import RunArgsForm
from gui.ui.components.run.status import LOOKS, clock_words, duration_words
from gui.ui.live import live_events

INTRO = N_("A schedule runs a saved sequence on its own, with the inputs you give here, while SeqDesk is open. "
           "Its steps that need your approval still wait for you in the Inbox.")
UNITS = {N_("minutes"): "m", N_("hours"): "h", N_("seconds"): "s"}
TURN_WORDS = {"skipped": N_("Skipped"), "failed": N_("Could not start")}


def when_words(schedule: Schedule) -> str:
    """How often, in words: "every 15m", "at set times (*/15 * * * *)" (as `Schedule.when_words`)."""
    if schedule.every is not None:
        english = current_language() == ENGLISH  # "15m", as written in the format; else the language's words
        shown = format_duration(schedule.every) if english else duration_words(schedule.every)
        return _("every {duration}").format(duration=shown)
    return _("at set times ({cron})").format(cron=schedule.cron)


def _inputs_words(args: dict[str, Any]) -> str:
    if not args:
        return _("no inputs")
    return ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in args.items())


class SchedulesSection(ui.card):
    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.classes("w-full gap-3 p-4").props("flat bordered").mark("schedules")
        self.form: RunArgsForm | None = None
        with self:
            with ui.row().classes("w-full items-center gap-2"):
                ui.icon("schedule", size="md").classes("text-primary")
                ui.label(_("Schedules")).classes("text-xl font-semibold")
                ui.space()
                self.add_button = ui.button(_("Add a schedule"), icon="add", on_click=self._toggle_form).props(
                    "outline no-caps").mark("add-schedule")
            ui.label(_(INTRO)).classes("text-sm text-gray-700 dark:text-gray-300")
            self.adder = ui.column().classes("w-full gap-2")
            self.adder.set_visibility(False)
            with ui.row().classes("w-full items-center gap-2 bg-gray-100 dark:bg-gray-800 rounded p-2") \
                    .mark("schedule-undo-bar") as self.undo_bar:
                self.undo_text = ui.label("")
                ui.button(_("Undo"), on_click=self._undo).props("flat dense no-caps").mark("schedule-undo")
            self.undo_bar.set_visibility(False)
            self._undoable: Schedule | None = None
            self.rows = ui.column().classes("w-full gap-2").mark("schedule-list")
        live_events(engine, self._on_events, types=("settings.changed", "run.finished"), interval=1.0)
        ui.timer(0, self.refresh, once=True)

    async def _on_events(self, events: list[Event]) -> None:
        if any(e.type == "run.finished" or e.data.get("setting") == "schedule" for e in events):
            await self.refresh()

    # -- the list ------------------------------------------------------------------------------
    async def refresh(self) -> None:
        schedules = await self.engine.list_schedules()
        last_status: dict[str, str] = {}
        for schedule in schedules:
            last = next((t for t in reversed(schedule.turns) if t.run_id), None)
            record = await self.engine.get_run(last.run_id) if last is not None and last.run_id else None
            if record is not None:
                last_status[schedule.schedule_id] = record.status
        self.rows.clear()
        with self.rows:
            if not schedules:
                ui.label(_("No schedules yet.")).classes("text-gray-600 dark:text-gray-400").mark("no-schedules")
            for schedule in schedules:
                self._row(schedule, last_status.get(schedule.schedule_id))

    def _row(self, schedule: Schedule, status: str | None) -> None:
        with ui.row(wrap=True).classes("w-full items-center gap-x-4 gap-y-1 py-2 border-t "
                                       "border-gray-200 dark:border-gray-700").mark(f"schedule-{schedule.sequence}"):
            with ui.column().classes("gap-0 grow min-w-0"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(schedule.sequence).classes(f"font-medium {DATA}")
                    ui.label(when_words(schedule)).classes("text-sm text-gray-700 dark:text-gray-300")
                    if schedule.paused:
                        ui.badge(_("Paused"), color="grey-4").props("text-color=grey-9").mark("paused")
                ui.label(_("With {inputs}").format(inputs=_inputs_words(schedule.args))).classes(
                    "text-sm text-gray-600 dark:text-gray-400 break-all")
            with ui.column().classes("gap-0"):
                ui.label(_("Next run")).classes("text-xs text-gray-600 dark:text-gray-400")
                ui.label(_("paused") if schedule.paused else clock_words(schedule.next_at)).classes("text-sm").mark(
                    "next-run")
            with ui.column().classes("gap-0"):
                ui.label(_("Last result")).classes("text-xs text-gray-600 dark:text-gray-400")
                self._last(schedule, status)
            if schedule.paused:
                ui.button(_("Go on"), icon="play_arrow",
                          on_click=lambda s=schedule: self._pause(s, False)).props("flat no-caps").mark("unpause")
            else:
                ui.button(_("Pause"), icon="pause",
                          on_click=lambda s=schedule: self._pause(s, True)).props("flat no-caps").mark("pause")
            ui.button(_("Delete"), icon="delete_outline", on_click=lambda s=schedule: self._delete(s)).props(
                "flat no-caps color=negative").mark("delete-schedule")

    @staticmethod
    def _last(schedule: Schedule, status: str | None) -> None:
        turn = schedule.last
        if turn is None:
            ui.label(_("not run yet")).classes("text-sm text-gray-600 dark:text-gray-400").mark("last-result")
            return
        if turn.outcome != "started":
            label = ui.label(_(TURN_WORDS[turn.outcome])).classes("text-sm text-orange-700 dark:text-orange-300")
            label.mark("last-result").tooltip(_(CAUSES[turn.cause].ended) if turn.cause else turn.detail or "")
            return
        look = LOOKS.get(status or "pending", LOOKS["pending"])
        with ui.row().classes("items-center gap-1 no-wrap").mark("last-result"):
            if look.icon == "spinner":
                ui.spinner(size="1em").classes(look.text)
            else:
                ui.icon(look.icon, size="xs").classes(look.text)
            ui.link(look.word, f"/runs/{turn.run_id}").classes(f"text-sm {look.text}")

    async def _pause(self, schedule: Schedule, paused: bool) -> None:
        try:
            await self.engine.pause_schedule(schedule.schedule_id, paused)
        except LookupError:
            ui.notify(_("This schedule was deleted meanwhile."), type="warning")
        await self.refresh()

    async def _delete(self, schedule: Schedule) -> None:
        """Delete at once, and offer Undo (a brief bar above the list) rather than asking first."""
        await self.engine.delete_schedule(schedule.schedule_id)
        self._undoable = schedule
        self.undo_text.set_text(_("Schedule for “{name}” deleted.").format(name=schedule.sequence))
        self.undo_bar.set_visibility(True)
        await self.refresh()

    async def _undo(self) -> None:
        """Make the deleted schedule again: the same sequence, inputs and timing, paused if it was
        (its next run counts from now; its past turns stay in the runs history)."""
        schedule, self._undoable = self._undoable, None
        self.undo_bar.set_visibility(False)
        if schedule is None:
            return
        every = format_duration(schedule.every) if schedule.every is not None else None
        try:
            again = await self.engine.create_schedule(schedule.sequence, schedule.args, every=every,
                                                      cron=None if every is not None else schedule.cron)
            if schedule.paused:
                await self.engine.pause_schedule(again.schedule_id, True)
        except ScheduleInvalid as exc:
            ui.notify(_("The schedule could not be made again: {why}").format(
                why="; ".join(exc.fields.values())), type="warning", multi_line=True)
        else:
            ui.notify(_("Schedule for “{name}” is back.").format(name=schedule.sequence), type="positive")
        await self.refresh()

    # -- adding --------------------------------------------------------------------------------
    async def _toggle_form(self) -> None:
        showing = not self.adder.visible
        self.adder.set_visibility(showing)
        if showing:
            await self._draw_form()

    async def _draw_form(self) -> None:
        names = [s["name"] for s in await self.engine.list_sequences()]
        self.adder.clear()
        with self.adder:
            with ui.row().classes("w-full items-start gap-3"):
                self.sequence = ui.select(names, label=_("Sequence"), with_input=True,
                                          on_change=self._sequence_chosen).classes("w-64").mark("schedule-sequence")
                self.how = ui.toggle({"every": _("Every…"), "cron": _("At set times")}, value="every",
                                     on_change=self._how_chosen).props("no-caps").mark("schedule-how")
                self.amount = ui.number(_("How often"), value=15, min=1, step=1).classes("w-32").mark("schedule-amount")
                self.unit = ui.select({k: _(k) for k in UNITS}, value="minutes", label=_("Unit")).classes("w-32").mark(
                    "schedule-unit")
                self.cron = ui.input(_("Times, written the cron way"), placeholder="*/15 * * * *").classes(
                    "w-64").mark("schedule-cron")
                self.cron.tooltip(_("minute hour day month weekday: “0 9 * * 1-5” is 9:00 on weekdays, "
                                    "“*/15 * * * *” every quarter of an hour"))
                self.cron.set_visibility(False)
            self.args_area = ui.column().classes("w-full gap-2")
            self.args_problem = ui.label().classes("text-red-700 dark:text-red-400 break-words").mark(
                "schedule-args-problem")
            self.args_problem.set_visibility(False)
            with ui.row().classes("gap-2"):
                ui.button(_("Save schedule"), icon="check", on_click=self._save).props("no-caps").mark("save-schedule")
                ui.button(_("Cancel"), on_click=self._toggle_form).props("flat no-caps")

    def _how_chosen(self) -> None:
        every = self.how.value == "every"
        self.amount.set_visibility(every)
        self.unit.set_visibility(every)
        self.cron.set_visibility(not every)

    async def _sequence_chosen(self) -> None:
        self.args_area.clear()
        self.form = None
        sequence = await self.engine.get(self.sequence.value) if self.sequence.value else None
        if sequence is not None:
            with self.args_area:
                ui.label(_("Inputs it runs with")).classes("text-sm font-medium")
                self.form = RunArgsForm(signature_of(sequence).inputs, empty_text_asks=False)

    def _clear_problems(self) -> None:
        inputs = list(self.form.fields.values()) if self.form is not None else []
        for field in (self.sequence, self.amount, self.cron, *inputs):
            field.props(remove="error error-message")
        self.args_problem.set_visibility(False)

    async def _save(self) -> None:
        self._clear_problems()
        args = self.form.values() if self.form is not None else {}
        if args is None:
            return  # the form shows each problem under its field
        every = cron = None
        if self.how.value == "every":
            amount = self.amount.value
            every = f"{amount:g}{UNITS[self.unit.value]}" if isinstance(amount, int | float) and amount > 0 else ""
        else:
            cron = (self.cron.value or "").strip()
        try:
            await self.engine.create_schedule(self.sequence.value, args, every=every, cron=cron)
        except ScheduleInvalid as exc:
            self._show(exc.fields)
            return
        shown = every if current_language() == ENGLISH or not every else f"{self.amount.value:g} {_(self.unit.value)}"
        ui.notify((_("Schedule saved: “{name}” runs every {every}.") if every
                   else _("Schedule saved: “{name}” runs at {cron}.")).format(name=self.sequence.value, every=shown,
                                                                             cron=cron),
                  type="positive")
        self.adder.set_visibility(False)
        await self.refresh()

    def _show(self, fields: dict[str, str]) -> None:
        where = {"sequence": self.sequence, "every": self.amount, "cron": self.cron}
        if self.form is not None:  # an input's own problem ("args.who") is shown under that input
            where.update({f"args.{name}": field for name, field in self.form.fields.items()})
        for name, message in fields.items():
            field = where.get(name)
            if field is not None:  # set as values, never parsed: the message may hold what was typed
                field.props["error"] = True
                field.props["error-message"] = _(message) if name.startswith("args.") else message
                field.update()
        if "args" in fields:
            self.args_problem.text = _("The inputs do not fit: {problem}").format(problem=fields["args"])
            self.args_problem.set_visibility(True)

