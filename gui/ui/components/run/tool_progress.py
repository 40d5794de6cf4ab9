"""A long tool's progress on its card: a bar (with "3 of 10" and the server's message) while it runs.

The tool's MCP server reports progress (`tool.progress`); the record keeps the last report, which is
what the bar shows. Without a total the bar moves without an end (the server does not know how far it
is); without any report the bar stays hidden, so a tool that reports nothing looks as it always did.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.runs import ToolRecord
from gui.i18n import _


def amount(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def progress_words(done: float, total: float | None, message: str | None) -> str:
    """ "3 of 10 · copying files", "3 so far", or the message alone when nothing is counted yet
    (nothing done, no total: "… needs you to sign in")."""
    if message and not done and not total:
        return message
    count = (_("{done} of {total}").format(done=amount(done), total=amount(total)) if total
             else _("{done} so far").format(done=amount(done)))
    return f"{count} · {message}" if message else count


class ToolProgressBar(ui.column):
    """`show(tool)`: visible while the tool runs and has reported progress; updated in place."""

    def __init__(self) -> None:
        super().__init__()
        self.classes("w-full gap-0.5 tool-progress").mark("tool-progress")
        self._shown: tuple[float, float | None, str | None] | None = None
        with self:
            self.bar = ui.linear_progress(value=0, show_value=False, size="6px").props(
                'rounded color=primary track-color=grey-4 aria-label="' + _("Progress") + '"').classes("w-full")
            self.words = ui.label().classes("text-xs text-gray-600 dark:text-gray-400 break-words").mark(
                "tool-progress-words")
        self.set_visibility(False)

    def show(self, tool: ToolRecord) -> None:
        report = tool.progress
        running = tool.status in ("running", "waiting") and tool.finished_at is None
        self.set_visibility(report is not None and running)
        if report is None or not running:
            return
        key = (report.progress, report.total, report.message)
        if key == self._shown:
            return
        self._shown = key
        if report.total:
            self.bar.props(remove="indeterminate")
            self.bar.set_value(max(0.0, min(1.0, report.progress / report.total)))
        else:
            self.bar.props(add="indeterminate")
        self.words.text = progress_words(report.progress, report.total, report.message)
