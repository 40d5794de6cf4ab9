"""The run panel: pick a sequence, fill in its args, press Run, and watch every tool live.

`/run` and `/run?sequence=NAME` show the launcher; `/run/{run_id}` shows the same launcher
(pre-filled with that run's args) above the live view of that run. Updates are batched: engine
events only mark the page as stale, and the page re-reads the live record at most four times a
second (and once a second for the clocks), so a group of 200 parallel tools stays responsive.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nicegui import background_tasks, ui

from gui.core.asks import Answerer, InteractionRecord
from gui.core.door import NotFoundError, Operations
from gui.core.events import Event, InteractionEnded
from gui.core.people import RUNNER
from gui.core.runs import AmbiguousRunIdError, RunRecord
from gui.core.sequences import DslError, RunArgsError, signature_of
from gui.i18n import N_, _
from gui.ui.components.run.agent_left import agent_left_note
from gui.ui.components.run.ambiguous import ambiguous_notice
from gui.ui.components.run.answer_panel import AnswerPanel
from gui.ui.components.run.args_form import RunArgsForm
from gui.ui.components.run.dark import add_dark_css
from gui.ui.components.run.panel import RunPanel
from gui.ui.components.run.resume import ResumeBar
from gui.ui.components.run.stopped_by import stopped_by_note
from gui.ui.live import live_events
from gui.ui.signed_in import current_person, may, starter
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext

EMPTY = N_("Nothing has run yet. Pick a sequence and press Run.")
CLOCK_SECONDS = 1.0


async def inputs_of(engine: Operations, name: str) -> dict[str, Any] | None:
    """The inputs a sequence (or a single group called by name) needs; None when nothing has that name."""
    try:
        sequence, group = await engine.resolve(name)
    except NotFoundError:
        return None
    return dict(group.in_) if group is not None else dict(signature_of(sequence).inputs)


async def load(engine: Operations, run_id: str) -> RunRecord | None:
    return await engine.get_run(run_id)


async def planned_args(engine: Operations, record: RunRecord) -> dict[int, list[Any]]:
    """Each group's tool arguments as the saved sequence writes them (inputs as `$args.x`), so a
    tool that has not started yet can already say what it will do. {} when the sequence changed."""
    sequence = await engine.get(record.sequence)
    if sequence is None:
        return {}
    by_name = {g.name: g for g in sequence.groups}
    planned: dict[int, list[Any]] = {}
    for grec in record.groups:
        group = by_name.get(grec.name)
        if group is not None and [c.tool for c in group.tools] == [t.tool for t in grec.tools]:
            planned[grec.index] = [c.args for c in group.tools]
    return planned


async def describer(engine: Operations) -> Callable[[str], str | None]:
    """A tool's description from the tools known when the page opened (None for one not there)."""
    descriptions = {t.name: t.description for t in (await engine.list_tools()).tools}

    def describe(name: str) -> str | None:
        description = descriptions.get(name)
        return _(description) if description else None  # a built-in tool's words are in the catalogue
    return describe


class Launcher:
    """The select, the args form and the Run button."""

    def __init__(self, engine: Operations, names: list[str], chosen: str | None, args: dict[str, Any] | None,
                 *, of_run: bool = False) -> None:
        self.engine = engine
        self.args = args
        # the sequence of the run shown (`of_run`): one not saved here ran from a file, which is no fault
        self.ran_unsaved = chosen if of_run and chosen not in names else None
        self.form: RunArgsForm | None = None
        with ui.card().classes("w-full gap-3 p-4").props("flat bordered"):
            if not names:
                with ui.row().classes("items-center gap-2"):
                    ui.label(_("There are no saved sequences yet.")).classes("text-gray-700 dark:text-gray-300")
                    ui.link(_("Make one in Sequences"), "/")
            options = {n: n for n in names}
            if chosen and chosen not in options:
                options[chosen] = chosen
            self.select = ui.select(options, label=_("Sequence"), value=chosen if chosen in options else None,
                                    with_input=True, on_change=self._chosen).classes("w-full max-w-xl").mark(
                "sequence-select")
            self.form_area = ui.column().classes("w-full gap-2")
            self.problems = ui.label().classes("text-red-700 dark:text-red-300 break-words").mark("run-problems")
            self.problems.set_visibility(False)
            self.run_button = ui.button(_("Run"), icon="play_arrow", on_click=self.run).props(
                "color=primary no-caps").mark("run-button")
        self.run_button.set_enabled(self.select.value is not None)

    async def build_form(self) -> None:
        self.form_area.clear()
        self.form = None
        name = self.select.value
        if not name:
            return
        inputs = await inputs_of(self.engine, name)
        with self.form_area:
            if inputs is None and name == self.ran_unsaved:
                ui.label(_("“{name}” is not saved in Sequences: this run's sequence came from elsewhere (a file, "
                           "an agent). Save it in Sequences to run it again from here.").format(name=name)).classes(
                    "text-gray-700 dark:text-gray-300").mark("unsaved-sequence")
                return
            if inputs is None:
                ui.label(_("There is no saved sequence named “{name}”.").format(name=name)).classes(
                    "text-red-700 dark:text-red-300")
                return
            self.form = RunArgsForm(inputs, self.args)

    async def _chosen(self) -> None:
        self.args = None
        self.problems.set_visibility(False)
        self.run_button.set_enabled(self.select.value is not None)
        await self.build_form()

    async def run(self) -> None:
        if self.form is None or not self.select.value:
            return
        args = self.form.values()
        if args is None:
            self._problem(_("Some inputs need fixing: see the marked fields."))
            return
        try:
            record = await self.engine.start(self.select.value, args, started_by=starter())
        except RunArgsError as exc:
            self._problem(_("The inputs do not fit this sequence: {problems}").format(problems="; ".join(exc.problems)))
            return
        except NotFoundError as exc:
            self._problem(str(exc))
            return
        except DslError as exc:  # saved before there were size limits: too large to run as it is
            self._problem(exc.errors[0].text(_))
            return
        ui.navigate.to(f"/run/{record.run_id}")

    def _problem(self, text: str) -> None:
        self.problems.text = text
        self.problems.set_visibility(True)


def watch(engine: Operations, run_id: str, panel: RunPanel, answer: AnswerPanel | None = None) -> None:
    """Keep `panel` up to date: redraw when events for this run arrived, and once a second for clocks."""
    last = {"at": time.time()}

    async def refresh() -> None:
        record = await load(engine, run_id)
        if record is None:
            return
        now = time.time()
        last["at"] = now
        panel.show(record, now)
        if record.finished:
            live.close()
            clock.cancel()

    async def on_batch(events: list[Event]) -> None:
        if answer is not None:
            for event in events:
                if isinstance(event, InteractionEnded):
                    answer.ended_elsewhere(InteractionRecord.model_validate(event.record))
        mine = [e for e in events if e.run_id == run_id and not isinstance(e, InteractionEnded)]
        for event in mine:
            panel.note_event(event)
        if mine:
            await refresh()

    async def on_clock() -> None:
        if time.time() - last["at"] >= CLOCK_SECONDS * 0.9:
            await refresh()

    live = live_events(engine, on_batch, types=("run.", "group.", "tool.", "interaction.ended"), interval=0.25)
    clock = ui.timer(CLOCK_SECONDS, on_clock)


async def run_view(ctx: AppContext, sequence: str | None = None, run_id: str | None = None) -> None:
    engine: Operations = ctx.engine  # the door only: the page works over `RemoteEngine` too
    record: RunRecord | None = None
    ambiguous: AmbiguousRunIdError | None = None
    if run_id:
        try:
            record = await engine.find_run(run_id)
        except AmbiguousRunIdError as exc:
            ambiguous = exc
    with frame(_("Run"), ctx):
        add_dark_css()
        ui.label(_("Run a sequence")).classes("text-2xl font-semibold")
        if ambiguous is not None:
            ambiguous_notice(ambiguous)
            return
        if run_id and record is None:
            with ui.row().classes("items-center gap-2").mark("no-such-run"):
                ui.label(_("There is no run {id}.").format(id=run_id)).classes("text-gray-700 dark:text-gray-300")
                ui.link(_("See all runs"), "/runs")
            return
        if record is not None and record.run_id != run_id:  # a short id: the address names the whole one
            ui.run_javascript(f"history.replaceState(history.state, '', {json.dumps('/run/' + record.run_id)})")
        chosen = (record.target or record.sequence) if record else sequence
        names = [s["name"] for s in await engine.list_sequences()]
        launcher = Launcher(engine, names, chosen, record.args if record else None, of_run=record is not None)
        await launcher.build_form()
        if record is None:
            if names:  # with none saved, the card above says to make one: there is nothing to pick yet
                ui.label(_(EMPTY)).classes("text-gray-600 dark:text-gray-400 text-center w-full py-8").mark(
                    "empty-state")
            return

        async def stop() -> None:
            if may(RUNNER):
                await engine.stop(record.run_id)

        ResumeBar(engine, record)
        agent_left_note(record)
        stopped_by_note(record)
        looking = current_person().name  # answers are this person's (on the desktop, "you")

        async def respond(interaction_id: str, response: Any, by: Answerer) -> Any:
            return await engine.respond(interaction_id, response, by.model_copy(update={"person": looking}))

        answer = AnswerPanel(respond=respond, fetch=engine.get_interaction, run_of=engine.get_run)

        def open_answer(interaction_id: str) -> None:
            background_tasks.create(answer.show_request(interaction_id), name="open-answer")

        panel = RunPanel(record, now=time.time(), on_stop=stop, describe=await describer(engine),
                         on_answer=open_answer, planned=await planned_args(engine, record),
                         run_of=engine.get_run).mark("run-panel")
        if not record.finished:
            watch(engine, record.run_id, panel, answer)


async def run_page(ctx: AppContext, sequence: str | None = None) -> None:
    await run_view(ctx, sequence=sequence)


async def run_detail_page(ctx: AppContext, run_id: str) -> None:
    await run_view(ctx, run_id=run_id)
