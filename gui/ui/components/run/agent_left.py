"""On a run's page: the agent that asked for the run stopped waiting for it, and the run went on.

An agent's client can give up on a run (its request timed out or was cancelled, its connection
dropped) while the run waits for the person; the run goes on, and its record keeps the moment
(`RunRecord.agent_left_at`). This line says so, so the person knows its result reached only them.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.runs import RunRecord
from gui.i18n import _
from gui.ui.components.run.status import clock_words


def agent_left_note(record: RunRecord) -> None:
    """The line, when the record says the agent stopped waiting; nothing otherwise."""
    if record.agent_left_at is None:
        return
    with ui.row().classes("items-center gap-1").mark("agent-left"):
        ui.icon("logout", size="sm").classes("text-gray-600 dark:text-gray-400")
        ui.label(_("The agent stopped waiting at {time}; the run went on for you.").format(
            time=clock_words(record.agent_left_at))).classes("text-sm text-gray-700 dark:text-gray-300")
