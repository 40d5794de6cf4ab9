"""One group of a run: its state, why it was skipped or failed, why its tools ran one by one, its tools.

The header always tells the story in words ("3 tools · run together · 2 done"), so a collapsed
group still says enough. Tool cards are built the first time the group is opened: a group of 200
parallel tools starts collapsed and costs a header, not 200 cards, until someone looks inside.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nicegui import ui

from gui.core.runs import GroupRecord
from gui.i18n import _, ngettext
from gui.ui.components.run.link import RunLink, RunOf
from gui.ui.components.run.retry import RetryInfo, ToolKey
from gui.ui.components.run.status import DONE_TOOL, StatusChip, group_state
from gui.ui.components.run.tool_card import Answer, ToolCard, inbox_path
from gui.wording.outcomes import group_note, kept_from, kept_parts

OPEN_UP_TO = 40  # groups with more tools start collapsed


def count_words(group: GroupRecord) -> str:
    n = len(group.tools)
    tools = ngettext("{n} tool", "{n} tools", n).format(n=n)
    if n > 1:
        tools += _(" · one by one") if group.serial_reason else _(" · run together")
    done = sum(t.status in DONE_TOOL for t in group.tools)
    waiting = sum(t.status == "waiting" for t in group.tools)
    running = sum(t.status == "running" for t in group.tools)
    parts = [tools]
    if group.status not in ("waiting", "skipped", "cancelled"):  # a group that did not run has nothing done
        parts.append(_("{done} of {n} done").format(done=done, n=n))
    if running:
        parts.append(_("{n} running").format(n=running))
    if waiting:
        parts.append(_("{n} waiting for you").format(n=waiting))
    return " · ".join(parts)


class GroupSection(ui.expansion):
    """A group's row; `show(record, now)` updates the header and the cards built so far."""

    def __init__(self, group: GroupRecord, *, detail: bool = False, now: float = 0.0,
                 on_select: Callable[[ToolKey], None] | None = None, on_answer: Answer | None = None,
                 planned: Sequence[Any] = (), run_of: RunOf | None = None) -> None:
        """`run_of` finds a run (the door's `get_run`): a group kept from an earlier run links to it by
        when it started; without it, the link says the run's short id."""
        super().__init__(value=len(group.tools) <= OPEN_UP_TO)
        self._planned = planned
        self._run_of = run_of
        self._kept_from: str | None = None
        self._on_select = on_select
        self._on_answer = on_answer
        self._waiting_id: str | None = None
        self._retries: Mapping[ToolKey, RetryInfo] = {}
        self._selected: ToolKey | None = None
        self.classes("w-full rounded border border-gray-200 dark:border-gray-700").props("dense header-class=py-1")
        self.detail = detail
        self._cards: list[ToolCard] = []
        self._record = group
        self._now = now
        self._header_key: tuple[object, ...] | None = None
        with self.add_slot("header"):
            with ui.column().classes("w-full gap-0"):
                with ui.row().classes("w-full items-center gap-x-3 gap-y-0"):
                    self.chip = StatusChip(group_state(group))
                    ui.label(_("Group {number} · {name}").format(number=group.index + 1, name=group.name)).classes(
                        "font-medium break-all")
                    ui.space()
                    self._counts = ui.label().classes("text-sm text-gray-600 dark:text-gray-400")
                    if on_answer is not None:
                        self._review: ui.element = ui.button(_("Review"), icon="front_hand",
                                                             on_click=self._review_clicked
                                                             ).props("dense unelevated no-caps color=deep-purple-7")
                    else:
                        self._review = ui.link(_("Review"), "#").classes(
                            "text-violet-700 dark:text-violet-300 font-medium")
                    self._review.mark("group-review")
                self._note = ui.label().classes("text-sm text-gray-600 dark:text-gray-400 break-words")
                self._kept = ui.element("div").classes("text-sm text-gray-600 dark:text-gray-400 break-words").mark(
                    "group-kept")
        with self:
            self._grid = ui.element("div").classes("w-full gap-2 " + ("grid" if not detail else "flex flex-col"))
            if not detail:
                self._grid.style("grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr))")
        self.on_value_change(lambda e: self._build_cards() if e.value else None)
        self.show(group, now)
        if self.value:
            self._build_cards()

    def _show_kept(self, run_id: str | None) -> None:
        """"Kept from run started 14:02: it had succeeded there, …", the run a link to it (its id in the tooltip)."""
        if run_id != self._kept_from:
            self._kept_from = run_id
            self._kept.clear()
            if run_id is not None:
                before, after = kept_parts()
                with self._kept:
                    ui.label(before).classes("inline")
                    RunLink(run_id, f"/runs/{run_id}", self._run_of).mark("kept-link")
                    ui.label(after).classes("inline")
        self._kept.set_visibility(run_id is not None)

    def _review_clicked(self) -> None:
        if self._waiting_id is not None and self._on_answer is not None:
            self._on_answer(self._waiting_id)

    def _build_cards(self) -> None:
        if self._cards:
            return
        with self._grid:
            self._cards = [ToolCard(t, detail=self.detail, now=self._now, key=(self._record.index, t.index),
                                    on_select=self._on_select, retry=self._retries.get((self._record.index, t.index)),
                                    on_answer=self._on_answer,
                                    planned=self._planned[t.index] if t.index < len(self._planned) else None)
                           for t in self._record.tools]
        self.select(self._selected)

    def open_to(self, key: ToolKey) -> None:
        """Open the group (building its cards) so the tool `key` can be seen."""
        self.value = True
        self._build_cards()

    def select(self, key: ToolKey | None) -> None:
        self._selected = key
        for card in self._cards:
            card.set_selected(card.tool_key == key)

    def show(self, group: GroupRecord, now: float, retries: Mapping[ToolKey, RetryInfo] | None = None) -> None:
        self._record, self._now = group, now
        self._retries = retries or {}
        state = group_state(group)
        counts, note = count_words(group), group_note(group)
        waiting = next((t for t in group.tools if t.status == "waiting" and t.interaction_id), None)
        key = (state, counts, note, waiting.interaction_id if waiting else None)
        if key != self._header_key:
            self._header_key = key
            self.chip.set(state)
            self._counts.text = counts
            self._show_kept(kept_from(group))
            self._note.text = note
            self._note.set_visibility(bool(note) and self._kept_from is None)
            self._review.set_visibility(waiting is not None)
            self._waiting_id = waiting.interaction_id if waiting is not None else None
            if waiting is not None and waiting.interaction_id and isinstance(self._review, ui.link):
                self._review.props["href"] = inbox_path(waiting.interaction_id)
                self._review.update()
            self.classes(remove="border-violet-500 bg-violet-50 dark:bg-violet-950")
            if state == "needs_you":
                self.classes(add="border-violet-500 bg-violet-50 dark:bg-violet-950")
        for card, tool in zip(self._cards, group.tools, strict=False):
            card.show(tool, now, self._retries.get((group.index, tool.index)))
