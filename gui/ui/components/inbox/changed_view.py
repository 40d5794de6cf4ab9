"""An approved change, afterwards: "Changed by you", and per argument what was asked (struck through)
and what was sent. Shown in the run's record (the tool card); the History says it in a sentence
(`gui.wording.changes.change_words`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nicegui import ui

from gui.i18n import DATA, _
from gui.ui.components.inbox.edit import STRUCK
from gui.wording.changes import changes, shown
from gui.wording.glossary import field_word


class ChangedByYou(ui.column):
    """"Changed by you", then per changed argument what was asked (struck through) and what was sent."""

    def __init__(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        super().__init__()
        found = changes(before, after)
        self.classes("w-full gap-1 rounded px-3 py-2 bg-amber-50 text-amber-950 dark:bg-amber-950 "
                      "dark:text-amber-50").mark("changed-by-you")
        with self:
            with ui.row().classes("items-center gap-1"):
                ui.icon("edit", size="xs")
                ui.label(_("Changed by you")).classes("text-sm font-medium")
            with ui.grid(columns="auto 1fr").classes("w-full gap-x-3 gap-y-0.5 items-baseline"):
                for name, old, new in found:
                    if len(found) > 1 or name != "command":
                        ui.label(_(field_word(name))).classes("text-xs font-medium col-span-2 pt-1")
                    ui.label(_("as asked")).classes("text-xs opacity-80")
                    ui.label(shown(old)).classes(f"font-mono text-sm whitespace-pre-wrap break-all {STRUCK} {DATA}") \
                        .mark(f"changed-before-{name}")
                    ui.label(_("as sent")).classes("text-xs opacity-80")
                    ui.label(shown(new)).classes(f"font-mono text-sm whitespace-pre-wrap break-all {DATA}") \
                        .mark(f"changed-after-{name}")
