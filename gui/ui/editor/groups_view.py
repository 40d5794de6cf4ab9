"""The groups of the draft as ordered cards: add, move, duplicate, remove (with Undo).

Cards are moved, not redrawn, when the order changes, and removing one offers Undo instead of a
confirmation dialog. Small sequences open with every card expanded; large ones open collapsed
so that fifty groups of ten tools still appear at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.free_names import free_name
from gui.ui.editor.context import EditorContext, Given
from gui.ui.editor.draft import GroupDraft, Issue, SequenceDraft, clone_group
from gui.ui.editor.fields import ErrorLabel
from gui.ui.editor.group_card import CardActions, GroupCard

EXPAND_ALL_UP_TO_TOOLS = 40


class GroupsView(ui.column):
    def __init__(self, ctx: EditorContext, draft: SequenceDraft, on_example: Callable[[], Awaitable[None]]) -> None:
        super().__init__()
        self.classes("w-full gap-3")
        self.ctx = dataclasses.replace(ctx, changed=self._changed, earlier=self.earlier)
        self.outer_changed = ctx.changed
        self.draft = draft
        self.cards: dict[str, GroupCard] = {}
        self.actions = CardActions(move=self.move_group, duplicate=self.duplicate, remove=self.remove_group)
        self._removed: tuple[int, GroupDraft] | None = None
        with self:
            with ui.row().classes("w-full items-center gap-2 bg-gray-100 dark:bg-gray-800 rounded p-2") \
                    .mark("undo-bar") as self.undo_bar:
                self.undo_text = ui.label("")
                ui.button("Undo", on_click=self.undo).props("flat dense no-caps").mark("undo")
            self.undo_bar.set_visibility(False)
            with ui.column().classes("w-full items-start gap-2 p-6 border border-dashed rounded") \
                    .mark("empty-groups") as self.empty:
                ui.label("No groups yet. A group is a set of tools that run at the same time; "
                         "groups run one after another.").classes("text-gray-700 dark:text-gray-300")
                with ui.row().classes("gap-2"):
                    ui.button("Add your first group", icon="add", on_click=self.add).props("no-caps") \
                        .mark("add-first-group")
                    ui.button("Start from the example", icon="auto_fix_high", on_click=on_example) \
                        .props("flat no-caps").mark("empty-example")
            self.error = ErrorLabel()
            ctx.fields.register("seq.groups", self, self.error)
            self.list = ui.column().classes("w-full gap-3")
            self.add_button = ui.button("Add a group", icon="add", on_click=self.add) \
                .props("outline no-caps").mark("add-group")
        self.load(draft)

    def load(self, draft: SequenceDraft, expand: bool | None = None) -> None:
        self.draft = draft
        self.list.clear()
        self.cards = {}
        if expand is None:
            expand = sum(len(g.tools) for g in draft.groups) <= EXPAND_ALL_UP_TO_TOOLS
        with self.list:
            for group in draft.groups:
                self.cards[group.uid] = GroupCard(self.ctx, group, self.actions, expanded=expand)
        self._reindex()

    def earlier(self, group: GroupDraft) -> list[Given]:
        """What the groups before `group` give back, latest first per name (as the run passes it on)."""
        index = next((i for i, g in enumerate(self.draft.groups) if g is group), len(self.draft.groups))
        given: dict[str, Given] = {}
        for gi, earlier in enumerate(self.draft.groups[:index]):
            for name, type_name in earlier.declared("in").items():  # what the person gives at Run
                if name not in given:
                    given[name] = Given(gi + 1, name, type_name, from_you=True)
            for name, type_name in earlier.declared("out").items():
                given.pop(name, None)
                given[name] = Given(gi + 1, name, type_name)
        return list(given.values())

    def _changed(self) -> None:
        self._show_sources()
        self.outer_changed()

    def _show_sources(self) -> None:
        for group, sources in zip(self.draft.groups, input_sources(self.draft), strict=True):
            card = self.cards.get(group.uid)
            if card is not None:
                card.set_sources(sources)

    def _reindex(self) -> None:
        self._show_sources()
        for index, group in enumerate(self.draft.groups):
            self.cards[group.uid].set_index(index)
        has_groups = bool(self.draft.groups)
        self.empty.set_visibility(not has_groups)
        self.add_button.set_visibility(has_groups)

    def _insert(self, index: int, group: GroupDraft) -> GroupCard:
        self.draft.groups.insert(index, group)
        with self.list:
            card = GroupCard(self.ctx, group, self.actions, expanded=True)
        card.move(target_index=index)
        self.cards[group.uid] = card
        self._reindex()
        return card

    def add(self) -> None:
        self._hide_undo()
        card = self._insert(len(self.draft.groups), GroupDraft())
        self.ctx.changed()
        self.ctx.fields.focus(f"{card.group.uid}.name")

    def move_group(self, group: GroupDraft, delta: int) -> None:
        groups = self.draft.groups
        index = groups.index(group)
        target = index + delta
        if not 0 <= target < len(groups):
            return
        groups.insert(target, groups.pop(index))
        self.cards[group.uid].move(target_index=target)
        self._reindex()
        self.ctx.changed()

    def duplicate(self, group: GroupDraft) -> None:
        copy = clone_group(group)
        taken = self.ctx.saved_names | {g.name for g in self.draft.groups}
        copy.name = free_name(group.name, taken) if group.name else ""
        self._insert(self.draft.groups.index(group) + 1, copy)
        self.ctx.changed()

    def remove_group(self, group: GroupDraft) -> None:
        index = self.draft.groups.index(group)
        self.draft.groups.pop(index)
        self.cards.pop(group.uid).delete()
        self._removed = (index, group)
        self.undo_text.set_text(f"Removed the group '{group.name or 'Unnamed group'}'.")
        self.undo_bar.set_visibility(True)
        self._reindex()
        self.ctx.changed()

    def undo(self) -> None:
        if self._removed is None:
            return
        index, group = self._removed
        self._hide_undo()
        self._insert(min(index, len(self.draft.groups)), group)
        self.ctx.changed()

    def _hide_undo(self) -> None:
        self._removed = None
        self.undo_bar.set_visibility(False)

    # -- problems ---------------------------------------------------------------------------------
    def show_counts(self, issues: list[Issue], *, expand: bool) -> None:
        counts: dict[str, int] = {}
        for issue in issues:
            if issue.group_uid is not None and issue.severity == "error":
                counts[issue.group_uid] = counts.get(issue.group_uid, 0) + 1
        for uid, card in self.cards.items():
            card.set_problems(counts.get(uid, 0))
            if expand and counts.get(uid):
                card.set_expanded(True)

    def reveal(self, group_uid: str | None) -> None:
        card = self.cards.get(group_uid or "")
        if card is not None:
            card.set_expanded(True)

    def places(self, issues: list[Issue]) -> dict[str, str]:
        """For each issue key, where it is, in words ("Group 2 › tool 1 (echo) › Save result to")."""
        names: dict[str, str] = {"seq": "Sequence"}
        for gi, group in enumerate(self.draft.groups):
            where = f"Group {gi + 1}" + (f" ({group.name})" if group.name else "")
            names[group.uid] = where
            for row in group.inputs:
                names[row.uid] = f"{where} › input '{row.name}'"
            for row in group.outputs:
                names[row.uid] = f"{where} › output '{row.name}'"
            for ci, rule in enumerate(group.when.rows):
                names[rule.uid] = f"{where} › condition rule {ci + 1}"
            for ti, tool in enumerate(group.tools):
                names[tool.uid] = f"{where} › tool {ti + 1} ({tool.tool})"
        out: dict[str, str] = {}
        for issue in issues:
            uid, _, field = issue.key.partition(".")
            out[issue.key] = " › ".join(p for p in (names.get(uid, ""), _FIELD_WORDS.get(field, _arg(field))) if p)
        return out


def input_sources(draft: SequenceDraft) -> list[dict[str, str]]:
    """For each group, where each of its inputs comes from: the latest earlier group that gives it,
    or the person, who fills it in when starting a run."""
    given: dict[str, int] = {}
    out: list[dict[str, str]] = []
    for index, group in enumerate(draft.groups):
        out.append({name: f"group {given[name] + 1}" if name in given else "you, when you run it"
                    for name in group.declared("in")})
        for name in group.declared("out"):
            given[name] = index
    return out


_FIELD_WORDS = {
    "name": "Name", "description": "Description", "when": "Condition", "timeout": "Time limit",
    "parallel": "Run tools at the same time", "missing": "If a tool is not available",
    "on_error": "If a tool fails", "in": "Inputs", "out": "Outputs", "tools": "Tools", "tool": "",
    "as": "Save result to", "type": "Type", "arg": "Input", "op": "Compare", "value": "Value",
    "card": "", "groups": "Groups", "document": "",
}


def _arg(field: str) -> str:
    return f"argument '{field[4:]}'" if field.startswith("arg.") else field
