"""The groups of a run in order, as GitHub Actions lists jobs: each with its state, each opening to its tools.

It is built once from the first record and then only updated: rows never move or appear under the
person's pointer while a run goes on.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.records import RunRecord
from gui.ui.components.run_group import GroupSection


class GroupList(ui.column):
    def __init__(self, record: RunRecord, *, detail: bool = False, now: float = 0.0) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        with self:
            self.sections = [GroupSection(g, detail=detail, now=now) for g in record.groups]

    def show(self, record: RunRecord, now: float) -> None:
        for section, group in zip(self.sections, record.groups, strict=False):
            section.show(group, now)
