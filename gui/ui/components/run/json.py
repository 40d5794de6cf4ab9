"""A value shown as readable JSON (text stays text) with its own Copy button.

Lighter than `ui.code`, which keeps a timer per block: a run's detail page may show hundreds.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.i18n import DATA, _

MAX_CHARS = 100_000


def pretty(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    if len(text) > MAX_CHARS:
        more = _("({n} more characters; copy to see everything)").format(n=len(text) - MAX_CHARS)
        text = text[:MAX_CHARS] + "\n… " + more
    return text


class JsonBlock(ui.element):
    def __init__(self, value: Any, *, max_height: str = "18rem") -> None:
        super().__init__("div")
        self.classes("relative w-full rounded bg-gray-50 dark:bg-gray-800 border border-gray-200 dark:border-gray-700")
        self._full = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        with self:
            ui.label(pretty(value)).classes(
                f"font-mono text-sm whitespace-pre-wrap break-all p-2 pr-10 overflow-auto w-full {DATA}").style(
                f"max-height:{max_height}")
            ui.button(icon="content_copy", on_click=self.copy).props("flat dense round size=sm").classes(
                "absolute top-1 right-1").tooltip(_("Copy"))

    def copy(self) -> None:
        ui.clipboard.write(self._full)
        ui.notify(_("Copied"))
