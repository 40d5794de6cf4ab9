"""The groups of the draft as ordered cards: add, move, duplicate, remove (with Undo).

Cards are moved, not redrawn, when the order changes, and removing one offers Undo instead of a
confirmation dialog. Small sequences open with every card expanded; large ones open collapsed
so that fifty groups of ten tools still appear at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.sequences import free_name
from gui.i18n import N_, _
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
                ui.button(_("Undo"), on_click=self.undo).props("flat dense no-caps").mark("undo")
            self.undo_bar.set_visibility(False)
            with ui.column().classes("w-full items-start gap-2 p-6 border border-dashed rounded") \
                    .mark("empty-groups") as self.empty:
                ui.label(_("No groups yet. A group is a set of tools that run at the same time; "
                           "groups run one after another.")).classes("text-gray-700 dark:text-gray-300")
                with ui.row().classes("gap-2"):
                    ui.button(_("Add your first group"), icon="add", on_click=self.add).props("no-caps") \
                        .mark("add-first-group")
                    ui.button(_("Start from the example"), icon="auto_fix_high", on_click=on_example) \
                        .props("flat no-caps").mark("empty-example")
            self.error = ErrorLabel()
            ctx.fields.register("seq.groups", self, self.error)
            self.list = ui.column().classes("w-full gap-3")
            self.add_button = ui.button(_("Add a group"), icon="add", on_click=self.add) \
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

    def tools_changed(self, names: set[str]) -> None:
        """Draw again the tools of these names (they came, went or changed), where a card shows them."""
        for card in self.cards.values():
            if card.tools is not None:
                card.tools.redraw(names)

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
        self.undo_text.set_text(_("Removed the group '{name}'.").format(name=group.name or _("Unnamed group")))
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
        names: dict[str, str] = {"seq": _("Sequence")}
        for gi, group in enumerate(self.draft.groups):
            where = (_("Group {number} ({name})") if group.name else _("Group {number}")).format(
                number=gi + 1, name=group.name)
            names[group.uid] = where
            for row in group.inputs:
                names[row.uid] = _("{where} › input '{name}'").format(where=where, name=row.name)
            for row in group.outputs:
                names[row.uid] = _("{where} › output '{name}'").format(where=where, name=row.name)
            for ci, rule in enumerate(group.when.rows):
                names[rule.uid] = _("{where} › condition rule {number}").format(where=where, number=ci + 1)
            for ti, tool in enumerate(group.tools):
                names[tool.uid] = _("{where} › tool {number} ({tool})").format(where=where, number=ti + 1,
                                                                                tool=tool.tool)
        out: dict[str, str] = {}
        for issue in issues:
            uid, _dot, field = issue.key.partition(".")
            word = _FIELD_WORDS.get(field)
            parts = (names.get(uid, ""), _(word) if word else "" if word is not None else _arg(field))
            out[issue.key] = " › ".join(p for p in parts if p)
        return out


def input_sources(draft: SequenceDraft) -> list[dict[str, str]]:
    """For each group, where each of its inputs comes from: the latest earlier group that gives it,
    or the person, who fills it in when starting a run."""
    given: dict[str, int] = {}
    out: list[dict[str, str]] = []
    for index, group in enumerate(draft.groups):
        out.append({name: _("group {number}").format(number=given[name] + 1) if name in given
                    else _("you, when you run it")
                    for name in group.declared("in")})
        for name in group.declared("out"):
            given[name] = index
    return out


_FIELD_WORDS = {
    "name": N_("Name"), "description": N_("Description"), "when": N_("Condition"), "timeout": N_("Time limit"),
    "parallel": N_("Run tools at the same time"), "missing": N_("If a tool is not available"),
    "on_error": N_("If a tool fails"), "in": N_("Inputs"), "out": N_("Outputs"), "tools": N_("Tools"), "tool": "",
    "as": N_("Save result to"), "type": N_("Type"), "arg": N_("Input"), "op": N_("Compare"), "value": N_("Value"),
    "card": "", "groups": N_("Groups"), "document": "",
}


def _arg(field: str) -> str:
    return _("argument '{name}'").format(name=field[4:]) if field.startswith("arg.") else field
