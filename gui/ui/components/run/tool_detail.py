"""The selected tool, in full: what it is, what it was sent, what came back (or what went wrong), and when.

The body is rebuilt only when what it shows changes (state, attempt, args, result, error, request,
retry words); the clocks ("running 3.2 s", "waiting for a person 1 min") are re-texted on every
refresh, so a selected running tool stays live without flicker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.runs import GroupRecord, ToolRecord
from gui.i18n import N_, _
from gui.ui.components.run.result_media import ToolLogView
from gui.ui.components.run.retry import RetryInfo, is_retrying, retry_words
from gui.ui.components.run.status import LOOKS, StatusChip, clock_words, duration_words, tool_state
from gui.ui.components.run.summary import tool_summary
from gui.ui.components.run.tool_card import Answer, changed_view, inbox_path, slot_words
from gui.ui.components.run.value import ValueView
from gui.wording.outcomes import core_words, outcome_words

EMPTY = N_("Select a tool to see what it was sent and what it gave back.")
Describe = Callable[[str], str | None]
LABEL = "text-xs text-gray-600 dark:text-gray-400"


def split_error(error: str) -> tuple[str, str]:
    """The plain-language first line, and the rest (technical details, often empty)."""
    first, _, rest = error.strip().partition("\n")
    return first.strip(), rest.strip()


def time_spent(tool: ToolRecord, now: float) -> tuple[float | None, float]:
    """Seconds spent running (waiting for a person not counted) and seconds spent waiting for a person."""
    if tool.started_at is None:
        return None, 0.0
    end = tool.finished_at if tool.finished_at is not None else now
    waited = sum(((w_end if w_end is not None else end) - w_start) for w_start, w_end in tool.waits)
    return max(end - tool.started_at - waited, 0.0), max(waited, 0.0)


class ToolDetail(ui.column):
    """`show(group, tool, retry, now)`; `show(None, None, None, now)` shows the hint."""

    def __init__(self, describe: Describe | None = None, on_answer: Answer | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-3")
        self._describe = describe or (lambda _name: None)
        self._on_answer = on_answer
        self._key: tuple[Any, ...] | None = None
        self._values: tuple[Any, Any, int] | None = None
        self._running: ui.label | None = None
        self._waiting: ui.label | None = None
        with self:
            self._empty = ui.label(_(EMPTY)).classes("text-gray-600 dark:text-gray-400 py-6").mark("detail-empty")
            self._body = ui.column().classes("w-full gap-3 min-w-0").mark("tool-detail")

    def show(self, group: GroupRecord | None, tool: ToolRecord | None, retry: RetryInfo | None, now: float) -> None:
        self._empty.set_visibility(tool is None)
        self._body.set_visibility(tool is not None)
        if group is None or tool is None:
            self._key = None
            return
        retrying = is_retrying(tool, retry)
        key = (group.index, tool.index, tool_state(tool), tool.attempts, tool.error, tool.reason,
               tool.interaction_id, tool.started_at, tool.finished_at, len(tool.waits),
               retry_words(tool, retry, now) if retrying else None)
        values = (tool.args, tool.result, len(tool.log))
        if key != self._key or values != self._values:
            self._key, self._values = key, values
            self._body.clear()
            with self._body:
                self._draw(group, tool, retry if retrying else None, now, retrying)
        self._clocks(tool, now)

    def _clocks(self, tool: ToolRecord, now: float) -> None:
        running, waiting = time_spent(tool, now)
        if self._running is not None:
            self._running.text = duration_words(running) if running is not None else _("not started")
        if self._waiting is not None:
            self._waiting.text = duration_words(waiting) if waiting >= 0.05 or tool.waits else _("none")

    def _draw(self, group: GroupRecord, tool: ToolRecord, retry: RetryInfo | None, now: float,
              retrying: bool) -> None:
        state = "retrying" if retrying else tool_state(tool)
        with ui.row(wrap=False).classes("w-full items-center gap-2"):
            ui.label(f"{tool.index + 1}. {tool.tool}").classes("font-mono text-lg font-semibold break-all").mark(
                "detail-tool-name")
            ui.space()
            StatusChip(state)
        ui.label(_("Group {number} · {name}").format(number=group.index + 1, name=group.name)
                 + (" · " + slot_words(tool) if tool.as_ else "")).classes(LABEL + " -mt-2")
        description = self._describe(tool.tool)
        if description:
            ui.label(description).classes("text-sm text-gray-700 dark:text-gray-300 break-words").mark(
                "detail-description")
        if retrying:
            with ui.row(wrap=False).classes("w-full items-center gap-2 rounded px-3 py-2 bg-blue-50 "
                                            "text-blue-900 dark:bg-blue-950 dark:text-blue-100"):
                ui.icon("autorenew").classes("text-blue-700 dark:text-blue-300")
                ui.label(retry_words(tool, retry, now)).classes("text-sm break-words").mark("detail-retry")
        summary = tool_summary(tool.tool, tool.args)
        if summary:
            ui.label(summary).classes("text-sm text-gray-800 dark:text-gray-200 break-all").mark("detail-summary")
        if state == "failed" and tool.error and not retrying:
            self._error(tool.error)
        elif state in ("timed_out", "expired", "denied", "declined", "stopped_by_you", "stopped", "interrupted",
                       "not_run", "cancelled", "skipped", "degraded") and (tool.error or tool.reason or tool.cause):
            look = LOOKS[state]
            with ui.row(wrap=False).classes("w-full items-start gap-2 rounded px-3 py-2 bg-gray-100 "
                                            "dark:bg-gray-800"):
                ui.icon(look.icon).classes(look.text + " mt-0.5")
                ui.label(outcome_words(tool, state)).classes(
                    "text-sm text-gray-900 dark:text-gray-100 break-words min-w-0").mark("detail-reason")
        self._request(tool)
        self._facts(tool)
        if tool.args is not None:
            ValueView(_("Arguments as sent"), tool.args).mark("detail-args")
        if tool.original_args is not None:
            changed_view(tool, "detail-original-args")
        elif tool.status == "queued":
            ui.label(_("Not sent yet: it has not started.")).classes("text-sm text-gray-600 dark:text-gray-400")
        if tool.status == "succeeded":
            ValueView(_("Result"), tool.result).mark("detail-result")
        if tool.log:
            ToolLogView(tool.log)

    def _answer(self, interaction_id: str) -> None:
        if self._on_answer is not None:
            self._on_answer(interaction_id)

    def _request(self, tool: ToolRecord) -> None:
        if not tool.interaction_id:
            return
        if tool.status == "waiting":
            with ui.row(wrap=False).classes("w-full items-center gap-2 rounded px-3 py-2 bg-violet-100 "
                                            "text-violet-900 dark:bg-violet-900 dark:text-violet-100"):
                ui.icon("front_hand").classes("text-violet-700 dark:text-violet-300")
                ui.label(_("It waits for your answer.")).classes("font-medium")
                ui.space()
                if self._on_answer is not None:
                    iid = tool.interaction_id
                    ui.button(_("Answer here"), icon="front_hand", on_click=lambda: self._answer(iid)).props(
                        "dense unelevated no-caps color=deep-purple-7").mark("detail-answer-here")
                ui.link(_("Open in the inbox"), inbox_path(tool.interaction_id)).classes(
                    "font-semibold text-violet-800 dark:text-violet-200").mark("detail-inbox-link")
        else:
            with ui.row().classes("items-center gap-1"):
                ui.icon("inbox", size="1.1em").classes("text-gray-600 dark:text-gray-400")
                ui.link(_("Its request in the inbox"), inbox_path(tool.interaction_id)).classes("text-sm").mark(
                    "detail-inbox-link")

    def _facts(self, tool: ToolRecord) -> None:
        with ui.element("div").classes("w-full grid gap-x-4 gap-y-0.5 text-sm").style(
                "grid-template-columns: max-content minmax(0, 1fr)"):
            ui.label(_("Running")).classes("text-gray-600 dark:text-gray-400")
            self._running = ui.label().classes("text-gray-900 dark:text-gray-100").mark("detail-running")
            ui.label(_("Waiting for a person")).classes("text-gray-600 dark:text-gray-400")
            self._waiting = ui.label().classes("text-gray-900 dark:text-gray-100").mark("detail-waiting")
            ui.label(_("Attempts")).classes("text-gray-600 dark:text-gray-400")
            ui.label(str(tool.attempts) if tool.attempts else _("none yet")).classes(
                "text-gray-900 dark:text-gray-100").mark("detail-attempts")
            if tool.started_at is not None:
                ui.label(_("Started")).classes("text-gray-600 dark:text-gray-400")
                ui.label(clock_words(tool.started_at)).classes("text-gray-900 dark:text-gray-100")

    @staticmethod
    def _error(error: str) -> None:
        first, rest = split_error(core_words(error))
        with ui.column().classes("w-full gap-1 rounded px-3 py-2 bg-red-50 dark:bg-red-950 "
                                 "border border-red-200 dark:border-red-900"):
            with ui.row(wrap=False).classes("w-full items-start gap-2"):
                ui.icon("error_outline").classes("text-red-700 dark:text-red-300 mt-0.5")
                ui.label(first).classes("font-medium text-red-800 dark:text-red-200 break-words min-w-0").mark(
                    "detail-error")
            if rest:
                with ui.expansion(_("Details")).classes("w-full text-sm").props("dense").mark("detail-error-more"):
                    ui.label(rest).classes("font-mono text-xs whitespace-pre-wrap break-all")
