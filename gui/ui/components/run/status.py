"""How a state looks on every run screen: always an icon plus a word, never colour alone (UX guide).

One table maps each state to its icon, word and colour, so a tool card, a group row, the run
header, the runs table and the timeline can never disagree. `StatusChip` draws it and changes
only when the state really changes, which keeps a page of 200 live tools cheap to update.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from nicegui import ui

from gui.core.causes import CAUSES
from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.i18n import ENGLISH, N_, _, current_language, format_datetime, format_number
from gui.wording.changes import value_text
from gui.wording.outcomes import ended_state


@dataclass(frozen=True)
class Look:
    icon: str  # a Material icon name, or "spinner" for an animated spinner
    english: str  # the word as written (marked with N_); `word` is it in the person's language
    text: str  # Tailwind text colour class
    hex: str  # the same colour for charts

    @property
    def word(self) -> str:
        return _(self.english)


GREY, BLUE, VIOLET = "#6b7280", "#2563eb", "#7c3aed"
GREEN, RED, ORANGE, AMBER = "#16a34a", "#dc2626", "#ea580c", "#d97706"

# Text colours pass WCAG AA (4.5:1) on white and on the dark theme's cards: 700 shades on light,
# 300/400 on dark (the 600 oranges and reds are too faint on white, the 700s too dark on black).
LOOKS: dict[str, Look] = {
    "queued": Look("radio_button_unchecked", N_("Queued"), "text-gray-600 dark:text-gray-400", GREY),
    "pending": Look("radio_button_unchecked", N_("Not started yet"), "text-gray-600 dark:text-gray-400", GREY),
    "running": Look("spinner", N_("Running"), "text-blue-700 dark:text-blue-300", BLUE),
    "retrying": Look("spinner", N_("Retrying"), "text-blue-700 dark:text-blue-300", BLUE),
    "needs_you": Look("front_hand", N_("Waiting for you"), "text-violet-700 dark:text-violet-300", VIOLET),
    "succeeded": Look("check_circle", N_("Succeeded"), "text-green-700 dark:text-green-400", GREEN),
    "failed": Look("cancel", N_("Failed"), "text-red-700 dark:text-red-300", RED),
    "timed_out": Look("schedule", N_("Timed out"), "text-orange-700 dark:text-orange-300", ORANGE),
    "expired": Look("timer_off", N_("Expired"), "text-orange-700 dark:text-orange-300", ORANGE),
    "denied": Look("block", N_("Denied by you"), "text-amber-800 dark:text-amber-300", AMBER),
    "declined": Look("do_not_disturb_on", N_("Declined by you"), "text-amber-800 dark:text-amber-300", AMBER),
    "skipped": Look("remove_circle_outline", N_("Skipped"), "text-gray-600 dark:text-gray-400", GREY),
    "degraded": Look("warning", N_("Degraded"), "text-orange-700 dark:text-orange-300", ORANGE),
    "cancelled": Look("block", N_("Cancelled"), "text-gray-600 dark:text-gray-400", GREY),
    "not_run": Look("do_not_disturb", N_("Not run"), "text-gray-600 dark:text-gray-400", GREY),
    "stopped": Look("stop_circle", N_("Stopped"), "text-gray-600 dark:text-gray-400", GREY),
    "stopped_by_you": Look("stop_circle", N_("Stopped by you"), "text-gray-600 dark:text-gray-400", GREY),
    "interrupted": Look("power_off", N_("Interrupted"), "text-orange-700 dark:text-orange-300", ORANGE),
}
DONE_TOOL = frozenset({"succeeded", "failed", "skipped", "degraded", "cancelled"})  # statuses, not states


def tool_state(tool: ToolRecord) -> str:
    """The state a tool is shown in: its status, told apart by why it ended (see `outcome`)."""
    if tool.status == "waiting":
        return "needs_you"
    if tool.status == "running" and tool.attempts > 1:
        return "retrying"
    if tool.status in ("failed", "cancelled"):
        return ended_state(tool)
    return tool.status


# The ends a person chose (or let happen): never shown as a crash.
PERSON_STATES = frozenset({"denied", "declined", "expired", "stopped_by_you"})


def cause(tools: list[ToolRecord]) -> ToolRecord | None:
    """The tool whose end failed its group: the first failed one."""
    return next((t for t in tools if t.status == "failed"), None)


def _failed_as(tools: list[ToolRecord]) -> str:
    """ "failed", or the person's choice that failed it ("denied", …) when no tool really failed."""
    failed = [ended_state(t) for t in tools if t.status == "failed"]
    if failed and all(state in PERSON_STATES for state in failed):
        return failed[0]
    return "failed"


def group_state(group: GroupRecord) -> str:
    if group.status == "waiting":
        return "pending"
    if group.status == "running" and any(t.status == "waiting" for t in group.tools):
        return "needs_you"
    if group.status == "failed" and group.timed_out:
        return "timed_out"
    if group.status == "cancelled":
        return "not_run"
    if group.cause is not None and group.status in ("stopped", "failed"):
        return CAUSES[group.cause].look  # "Stopped by you", "Stopped", "Interrupted"...
    if group.status == "failed":
        return _failed_as(group.tools)
    return group.status  # "stopped" with no cause: a record that does not say who stopped it


def run_state(record: RunRecord) -> str:
    """The state a run is shown in (the runs list, the run page's header): a run ended by its failed
    group's time limit is "timed_out", as that group's row and the timeline say; its status stays "failed"
    (the store's, the API's and the list's "Failed" filter's)."""
    if record.status == "running" and waiting_tools(record):
        return "needs_you"
    if record.cause is not None and record.status in ("stopped", "interrupted"):
        return CAUSES[record.cause].look
    if record.status == "failed":
        failed = next((g for g in record.groups if g.status == "failed"), None)
        if failed is not None:
            return "timed_out" if failed.timed_out else _failed_as(failed.tools)
    return record.status


def waiting_tools(record: RunRecord) -> list[ToolRecord]:
    return [t for g in record.groups for t in g.tools if t.status == "waiting"]


def duration_words(seconds: float | None) -> str:
    """`0.4 s`, `12 s`, `3 min 4 s`, `1 h 2 min`: short, for people."""
    if seconds is None:
        return "—"
    seconds = max(seconds, 0.0)
    if seconds < 10:
        return _("{seconds} s").format(seconds=format_number(seconds, decimals=1))
    if seconds < 60:
        return _("{seconds} s").format(seconds=format_number(seconds, decimals=0))
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return (_("{minutes} min {seconds} s").format(minutes=minutes, seconds=secs) if secs
                else _("{minutes} min").format(minutes=minutes))
    hours, minutes = divmod(minutes, 60)
    return (_("{hours} h {minutes} min").format(hours=hours, minutes=minutes) if minutes
            else _("{hours} h").format(hours=hours))


def clock_words(epoch: float | None) -> str:
    """A moment as a person reads it: `2026-12-01 13:15:32` in English (as before), the
    language's own date and time form otherwise."""
    if epoch is None:
        return "—"
    if current_language() == ENGLISH:  # English: the form the screens and their tests know
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
    return format_datetime(epoch, "medium")


def preview(value: Any, limit: int = 160) -> str:
    """A value on one line, cut to `limit` characters: text as is, anything else as JSON."""
    text = value_text(value) if value is not None else "null"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StatusChip(ui.row):
    """Icon (or spinner) and word for one state; `set` is a no-op when the state is unchanged."""

    def __init__(self, state: str, *, word: str | None = None, size: str = "sm") -> None:
        super().__init__(wrap=False)
        self.classes("items-center gap-1 no-wrap")
        self._state: str | None = None
        self._word: str | None = None
        with self:
            self._spinner = ui.spinner(size="1.2em")
            self._icon = ui.icon("circle", size="1.2em" if size == "sm" else "1.6em")
            self._label = ui.label().classes("font-medium whitespace-nowrap" + (" text-lg" if size == "lg" else ""))
        self._colour = ""
        self.set(state, word=word)

    @property
    def state(self) -> str | None:
        return self._state

    def set(self, state: str, *, word: str | None = None) -> None:
        look = LOOKS.get(state, Look("help_outline", state.capitalize(), "text-gray-500 dark:text-gray-400", GREY))
        word = word or look.word
        if state == self._state and word == self._word:
            return
        self._state, self._word = state, word
        spinning = look.icon == "spinner"
        for element in (self._spinner, self._icon, self._label):  # never `replace`: visibility is a class too
            element.classes(remove=self._colour, add=look.text)
        self._colour = look.text
        self._spinner.set_visibility(spinning)
        self._icon.set_visibility(not spinning)
        if not spinning:
            self._icon.name = look.icon
        self._label.text = word
