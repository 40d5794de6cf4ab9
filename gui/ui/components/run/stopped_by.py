"""On a run's page: where the Stop that ended the run was pressed, when a team's store says so.

Several SeqDesk processes can share one database (`--store postgresql://…`); a Stop pressed in one of
them ends a run another runs, and the record keeps where it was pressed (`RunRecord.stopped_by`: the
machine and the process). On a lone desktop the record has no such field, and nothing is shown.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.runs import RunRecord
from gui.i18n import _


def stopped_by_note(record: RunRecord) -> None:
    """The line, when the record says where its Stop was pressed; nothing otherwise."""
    if record.stopped_by is None or record.status != "stopped":
        return
    with ui.row().classes("items-center gap-1").mark("stopped-by"):
        ui.icon("stop_circle", size="sm").classes("text-gray-600 dark:text-gray-400")
        ui.label(_("Stop was pressed in the SeqDesk running on {where}.").format(where=record.stopped_by)).classes(
            "text-sm text-gray-700 dark:text-gray-300")
