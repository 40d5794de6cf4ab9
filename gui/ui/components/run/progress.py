"""The run panel's header: what runs, its state, how far it got in words, how long, and Stop.

The violet banner "1 request needs you" sits here, above everything, because people missed
approvals hidden in run lists (UX guide). Stop asks first: stopping cancels running tools.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.runs import RunRecord
from gui.i18n import DATA, N_, _, ngettext
from gui.ui.components.run.status import (
    DONE_TOOL,
    LOOKS,
    PERSON_STATES,
    StatusChip,
    cause,
    duration_words,
    run_state,
    tool_state,
    waiting_tools,
)
from gui.ui.components.run.tool_card import Answer, inbox_path
from gui.wording.outcomes import cause_words, outcome_words, run_error_words

BAR_COLOURS = {"running": "primary", "needs_you": "deep-purple-6", "succeeded": "positive", "failed": "negative",
               "degraded": "orange-8", "interrupted": "orange-8", "timed_out": "orange-8"}
BANNER = ("w-full items-center gap-2 rounded px-3 py-2 bg-violet-100 text-violet-900 "
          "dark:bg-violet-900 dark:text-violet-100")
STOP_QUESTION = N_("Stop now? Running tools will be cancelled.")


def progress_words(record: RunRecord) -> str:
    tools = [t for g in record.groups for t in g.tools]
    total = len(tools)
    if record.finished:  # a tool a finished run never started did not run: never "queued"
        states = Counter("not_run" if t.status == "queued" else tool_state(t) for t in tools if t.status != "succeeded")
        ok = sum(t.status == "succeeded" for t in tools)
        words = [_("{ok} of {total} tools succeeded").format(
            ok=ok, total=total)]
        words += [f"{n} {LOOKS[state].word.lower() if state in LOOKS else state}" for state, n in states.items()]
        return _("Finished · {details}").format(details=" · ".join(words))
    n = len(record.groups)
    current = next((g.index for g in record.groups if g.status == "running"), None)
    if current is None:
        current = sum(g.status != "waiting" for g in record.groups)
    done = sum(t.status in DONE_TOOL for t in tools)
    return _("Group {current} of {n} · {done} of {total} tools done").format(
        current=min(current + 1, n), n=n, done=done, total=total)


def progress_value(record: RunRecord) -> float:
    tools = [t for g in record.groups for t in g.tools]
    if record.finished or not tools:
        return 1.0 if record.finished else 0.0
    return sum(t.status in DONE_TOOL for t in tools) / len(tools)


def needs_you_words(count: int) -> str:
    return ngettext("{count} request needs you", "{count} requests need you", count).format(count=count)


class RunProgress(ui.card):
    """`show(record, now)` updates it; `on_stop` is awaited after the person confirms."""

    def __init__(self, record: RunRecord, *, on_stop: Callable[[], Awaitable[None]] | None = None,
                 on_answer: Answer | None = None) -> None:
        super().__init__()
        self._on_answer = on_answer
        self._first_waiting: str | None = None
        self.classes("w-full gap-2 p-4").props("flat bordered")
        self._on_stop = on_stop
        self._key: tuple[object, ...] | None = None
        with self:
            with ui.row().classes("w-full items-center gap-x-3 gap-y-1"):
                title = record.sequence + (f" › {record.target}" if record.target else "")
                ui.label(title).classes(f"text-xl font-semibold break-all {DATA}").mark("run-title")
                self.chip = StatusChip(run_state(record), size="lg")
                ui.space()
                self._elapsed = ui.label().classes("text-sm text-gray-600 dark:text-gray-400 whitespace-nowrap")
                self._stop = ui.button(_("Stop run"), icon="stop", on_click=self._confirm_stop).props(
                    "outline no-caps color=negative").mark("stop-run")
            self._bar = ui.linear_progress(value=0, show_value=False, size="10px").props("rounded")
            self._words = ui.label().classes("text-sm text-gray-700 dark:text-gray-300").mark("progress-words")
            with ui.row(wrap=False).classes(BANNER).mark("needs-you-banner") as self._banner:
                ui.icon("front_hand").classes("text-violet-700 dark:text-violet-300")
                self._banner_text = ui.label().classes("font-medium")
                ui.space()
                if on_answer is not None:
                    ui.button(_("Review now"), icon="front_hand", on_click=self._review).props(
                        "dense unelevated no-caps color=deep-purple-7").mark("banner-answer")
                self._banner_link = ui.link(_("Open in the inbox") if on_answer else _("Review now"), "/inbox").classes(
                    "font-semibold text-violet-800 dark:text-violet-200")
            self._error = ui.label().classes("text-red-700 dark:text-red-300 break-words").mark("run-error")
        self._dialog = ui.dialog()
        with self._dialog, ui.card().classes("gap-3"):
            ui.label(_(STOP_QUESTION)).classes("text-base")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Keep running"), on_click=self._dialog.close).props("flat no-caps")
                ui.button(_("Stop run"), icon="stop", on_click=self._stop_now).props("no-caps color=negative").mark(
                    "confirm-stop")

    def show(self, record: RunRecord, now: float) -> None:
        end = record.finished_at if record.finished else now
        spent = duration_words((end or now) - record.created_at)
        elapsed = (_("Took {time}") if record.finished else _("Elapsed {time}")).format(time=spent)
        if self._elapsed.text != elapsed:
            self._elapsed.text = elapsed
        state = run_state(record)
        waiting = waiting_tools(record)
        words = progress_words(record)
        key = (state, words, tuple(t.interaction_id for t in waiting), record.error)
        if key == self._key:
            return
        self._key = key
        self.chip.set(state)
        self._bar.set_value(progress_value(record))
        self._bar.props(f"color={BAR_COLOURS.get(state, 'grey-6')}")
        self._words.text = words
        self._banner.set_visibility(bool(waiting))
        if waiting:
            self._banner_text.text = needs_you_words(len(waiting))
            first = waiting[0].interaction_id
            self._first_waiting = first
            self._banner_link.props["href"] = inbox_path(first) if first else "/inbox"
            self._banner_link.update()
        self._error.text = self._error_words(record, state)
        self._error.set_visibility(bool(record.error) and record.finished)
        self._stop.set_visibility(not record.finished and self._on_stop is not None)

    def _error_words(self, record: RunRecord, state: str) -> str:
        """Why the run ended, in words; a person's choice, or what stopped it from outside (the app
        closing, an agent giving up: its cause), is told as such, never as a red error."""
        person = state in PERSON_STATES
        stopped = record.cause is not None and record.status in ("stopped", "interrupted")
        colour = "text-gray-800 dark:text-gray-200" if person or stopped else "text-red-700 dark:text-red-300"
        self._error.classes(remove="text-gray-800 dark:text-gray-200 text-red-700 dark:text-red-300", add=colour)
        if stopped and record.cause is not None:
            return cause_words(record.cause)
        if person and state != "stopped_by_you":
            failed = next((g for g in record.groups if g.status == "failed"), None)
            tool = cause(failed.tools) if failed is not None else None
            if tool is not None and failed is not None:
                return _("Group {number} · {name} did not go on. {why}.").format(
                    number=failed.index + 1, name=failed.name, why=outcome_words(tool))
        return run_error_words(record.error or "")

    def _review(self) -> None:
        if self._first_waiting is not None and self._on_answer is not None:
            self._on_answer(self._first_waiting)

    def _confirm_stop(self) -> None:
        self._dialog.open()

    async def _stop_now(self) -> None:
        self._dialog.close()
        self._stop.disable()
        if self._on_stop is not None:
            await self._on_stop()
