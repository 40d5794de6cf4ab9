"""The groups of a run in order, as GitHub Actions lists jobs: each with its state, each opening to its tools.

It is built once from the first record and then only updated: rows never move or appear under the
person's pointer while a run goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nicegui import ui

from gui.core.records import RunRecord
from gui.ui.components.run.group import GroupSection
from gui.ui.components.run.retry import RetryInfo, ToolKey
from gui.ui.components.run.tool_card import Answer


class GroupList(ui.column):
    def __init__(self, record: RunRecord, *, detail: bool = False, now: float = 0.0,
                 on_select: Callable[[ToolKey], None] | None = None, on_answer: Answer | None = None,
                 planned: Mapping[int, Sequence[Any]] | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        planned = planned or {}
        with self:
            self.sections = [GroupSection(g, detail=detail, now=now, on_select=on_select, on_answer=on_answer,
                                          planned=planned.get(g.index, ())) for g in record.groups]

    def select(self, key: ToolKey | None) -> None:
        """Mark the tool `key` (group index, tool index) as selected, opening its group."""
        for index, section in enumerate(self.sections):
            if key is not None and key[0] == index:
                section.open_to(key)
            section.select(key)

    def show(self, record: RunRecord, now: float, retries: Mapping[ToolKey, RetryInfo] | None = None) -> None:
        for section, group in zip(self.sections, record.groups, strict=False):
            section.show(group, now, retries)
