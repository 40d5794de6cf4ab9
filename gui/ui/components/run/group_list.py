"""The groups of a run in order, as GitHub Actions lists jobs: each with its state, each opening to its tools.

It is built once from the first record and then only updated: rows never move or appear under the
person's pointer while a run goes on. A run of many groups is built a batch at a time: the first
FIRST_GROUPS at once, then as many as fit in BATCH_SECONDS at each turn of the event loop (a group
with its tool cards takes a few milliseconds), each from the latest record, so opening a run of a
thousand groups never holds up the app's other pages and requests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nicegui import ui

from gui.core.runs import GroupRecord, RunRecord
from gui.ui.components.run.group import GroupSection
from gui.ui.components.run.link import RunOf
from gui.ui.components.run.retry import RetryInfo, ToolKey
from gui.ui.components.run.tool_card import Answer

FIRST_GROUPS = 10  # a run of up to this many groups appears whole at once
BATCH_SECONDS = 0.02  # then groups are added for this long at each turn of the event loop


class GroupList(ui.column):
    def __init__(self, record: RunRecord, *, detail: bool = False, now: float = 0.0,
                 on_select: Callable[[ToolKey], None] | None = None, on_answer: Answer | None = None,
                 planned: Mapping[int, Sequence[Any]] | None = None, run_of: RunOf | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        self._planned = planned or {}
        self._options: dict[str, Any] = {"detail": detail, "on_select": on_select, "on_answer": on_answer,
                                         "run_of": run_of}
        self._record, self._now = record, now
        self._retries: Mapping[ToolKey, RetryInfo] = {}
        self._selected: ToolKey | None = None
        self.sections: list[GroupSection] = []
        self._build(FIRST_GROUPS)
        self._more: ui.timer | None = None
        if not self.built:
            with self:
                self._more = ui.timer(0.01, self._build_more)

    @property
    def built(self) -> bool:
        """Whether every group has its row (a large run's rows come a batch at a time)."""
        return len(self.sections) >= len(self._record.groups)

    def _section(self, group: GroupRecord) -> GroupSection:
        section = GroupSection(group, now=self._now, planned=self._planned.get(group.index, ()), **self._options)
        if self._retries:
            section.show(group, self._now, self._retries)
        if self._selected is not None and self._selected[0] == group.index:
            section.open_to(self._selected)
        section.select(self._selected)
        return section

    def _build(self, count: int) -> None:
        start = len(self.sections)
        with self:
            self.sections += [self._section(g) for g in self._record.groups[start:start + count]]

    def _build_more(self) -> None:
        until = time.perf_counter() + BATCH_SECONDS
        while not self.built and time.perf_counter() < until:
            self._build(1)
        if self.built and self._more is not None:
            self._more.cancel()
            self._more = None

    def select(self, key: ToolKey | None) -> None:
        """Mark the tool `key` (group index, tool index) as selected, opening its group."""
        self._selected = key
        for index, section in enumerate(self.sections):
            if key is not None and key[0] == index:
                section.open_to(key)
            section.select(key)

    def show(self, record: RunRecord, now: float, retries: Mapping[ToolKey, RetryInfo] | None = None) -> None:
        self._record, self._now, self._retries = record, now, retries or {}
        for section, group in zip(self.sections, record.groups, strict=False):
            section.show(group, now, retries)
