"""A finished run's outputs: each slot with its value as readable JSON and a Copy button.

Values are pretty-printed (text stays text), and the whole set can be copied at once for pasting
into another tool or a bug report.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.core.tools import parts_of
from gui.i18n import DATA, _
from gui.ui.components.run.json import JsonBlock
from gui.ui.components.run.result_media import MediaView


class RunOutputs(ui.column):
    """`show(outputs)` draws them once; an empty dict says there were none."""

    def __init__(self) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        self._shown: dict[str, Any] | None = None

    def show(self, outputs: dict[str, Any], *, finished: bool) -> None:
        if not finished or outputs == self._shown:
            return
        self._shown = dict(outputs)
        self.clear()
        with self:
            with ui.row().classes("w-full items-center"):
                ui.label(_("Results")).classes("text-lg font-semibold")
                ui.space()
                if outputs:
                    ui.button(_("Copy all"), icon="content_copy",
                              on_click=lambda: self._copy(json.dumps(outputs, indent=2, ensure_ascii=False))
                              ).props("flat dense no-caps")
            if not outputs:
                ui.label(_("This run gave back no results.")).classes("text-gray-600 dark:text-gray-400")
                return
            for name, value in outputs.items():
                with ui.column().classes("w-full gap-0").mark(f"output-{name}"):
                    ui.label(name).classes(f"font-medium font-mono {DATA}")
                    MediaView(value) if parts_of(value) is not None else JsonBlock(value)

    @staticmethod
    def _copy(text: str) -> None:
        ui.clipboard.write(text)
        ui.notify(_("Copied"))
