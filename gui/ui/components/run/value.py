"""A tool's arguments or result, readable: short values inline, anything bigger as a collapsible tree.

A flat object reads as "name  value" rows, names in the glossary's words ("Folder", not `cwd`;
"nothing", never `null`); a value that does not fit on a line (nested objects,
lists, long text) gets a JSON tree (vanilla-jsoneditor, read-only) or a text block. One Copy button
copies the whole value as JSON, whatever way it is shown.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.core.tools import parts_of
from gui.i18n import DATA, _
from gui.ui.components.run.json import JsonBlock
from gui.ui.components.run.result_media import MediaView
from gui.wording.changes import value_text
from gui.wording.glossary import NOTHING, field_word

SHORT = 80  # characters a value may have to be shown inline
MAX_ROWS = 30  # an object with more keys is shown as one tree
TREE_LINE_REM = 1.3


def is_short(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= SHORT and "\n" not in value
    return value is None or isinstance(value, bool | int | float)


def inline_text(value: Any) -> str:
    """A short value as people read it: never `null`, `true` or `false`."""
    if isinstance(value, str):
        return value if value else _("(empty text)")
    if value is None:
        return _(NOTHING)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return value_text(value)


def as_json_text(value: Any) -> str:
    return value_text(value, indent=2) if value is not None else "null"


def json_tree(value: Any) -> ui.json_editor:
    """A read-only, collapsible tree, as tall as its content up to ~18 lines."""
    lines = len(json.dumps(value, indent=2, ensure_ascii=False).splitlines())
    height = min(max(lines, 3), 18) * TREE_LINE_REM + 0.75
    return ui.json_editor({"content": {"json": value}, "mode": "tree", "readOnly": True, "mainMenuBar": False,
                           "navigationBar": False, "statusBar": False}).classes("w-full").style(
        f"height:{height:.2f}rem")


def _data(value: Any) -> str:
    """The data class for a value shown as it is (text, a number); the words for empty, yes/no and
    nothing are translated, so they are not data."""
    return f" {DATA}" if (isinstance(value, str) and value) or isinstance(value, int | float) and \
        not isinstance(value, bool) else ""


def value_body(value: Any) -> None:
    """Draw `value` in the current context (no title, no Copy)."""
    if parts_of(value) is not None:  # pictures, sounds, links a tool gave back: shown as they are
        MediaView(value)
    elif is_short(value):
        ui.label(inline_text(value)).classes("font-mono text-sm break-all text-gray-900 dark:text-gray-100"
                                             + _data(value))
    elif isinstance(value, str):
        JsonBlock(value, max_height="14rem")
    elif isinstance(value, dict) and 0 < len(value) <= MAX_ROWS:
        with ui.element("div").classes("w-full grid gap-x-4 gap-y-1 items-baseline").style(
                "grid-template-columns: minmax(4rem, max-content) minmax(0, 1fr)"):
            for key, item in value.items():
                ui.label(_(field_word(str(key)))).classes("text-sm text-gray-600 dark:text-gray-400 break-all")
                if is_short(item):
                    ui.label(inline_text(item)).classes(
                        "font-mono text-sm break-all text-gray-900 dark:text-gray-100" + _data(item))
                elif isinstance(item, str):
                    JsonBlock(item, max_height="10rem")
                else:
                    json_tree(item)
    elif isinstance(value, dict | list) and not value:
        ui.label("{}" if isinstance(value, dict) else _("[] (an empty list)")).classes("font-mono text-sm")
    else:
        json_tree(value)


class ValueView(ui.column):
    """A titled value with a Copy button for all of it."""

    def __init__(self, title: str, value: Any) -> None:
        super().__init__()
        self.classes("w-full gap-1")
        self._copy_text = as_json_text(value)
        with self:
            with ui.row(wrap=False).classes("w-full items-center gap-2"):
                ui.label(title).classes("text-sm font-semibold text-gray-700 dark:text-gray-300")
                ui.space()
                ui.button(_("Copy"), icon="content_copy", on_click=self.copy).props(
                    "flat dense no-caps size=sm").tooltip(_("Copy the {what} as JSON").format(what=title.lower()))
            value_body(value)

    def copy(self) -> None:
        ui.clipboard.write(self._copy_text)
        ui.notify(_("Copied"))
