"""One group as a card: a summary a person can scan, and its fields when opened.

The summary ("Runs if …", inputs → outputs with types, "3 tools · run together", the time limit,
what a failure does, an amber problem badge) is always shown; the fields are drawn the first time
the card is opened, which keeps a sequence of fifty groups quick to open. A failed save opens the
cards that have problems.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from nicegui import ui

from gui.i18n import DATA, N_, _, ngettext
from gui.ui.editor.answerers import AnswerersSection, DesktopAnswerers, asking_words
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import ConditionDraft, GroupDraft, condition_text, timeout_text
from gui.ui.editor.fields import ErrorLabel
from gui.ui.editor.group_test import GroupTest
from gui.ui.editor.rules import RulesSection
from gui.ui.editor.slots import SlotList
from gui.ui.editor.tools_section import ToolList
from gui.wording.glossary import JOINER_WORDS, NOTHING, ON_ERROR_WORDS, UNIT_WORDS, said_rule, said_type


@dataclass
class CardActions:
    move: Callable[[GroupDraft, int], None]
    duplicate: Callable[[GroupDraft], None]
    remove: Callable[[GroupDraft], None]


def _slots_text(slots: dict[str, str], sources: dict[str, str] | None = None) -> str:
    sources = sources or {}
    return _(", ").join((_("{name} · {type} (from {source})") if n in sources else _("{name} · {type}")).format(
        name=n, type=said_type(t), source=sources.get(n)) for n, t in slots.items()) or _(NOTHING)


_JOINERS = {"and": N_("and"), "or": N_("or")}


def when_words(cond: ConditionDraft) -> str:
    """ "Always runs", or "Runs if: folder is not empty" (rules in words; written text without `$args.`)."""
    if cond.mode == "rows":
        rows = [r for r in cond.rows if r.arg and r.value is not None]
        if not rows:
            return _("Always runs")
        joiner = _(_JOINERS[cond.joiner])
        joined = f" {joiner} ".join(said_rule(r.arg or "", r.op, r.value) for r in rows)
        return _("Runs if: {rules}").format(rules=joined) if len(rows) == 1 else \
            _("Runs if {joiner}: {rules}").format(joiner=_(JOINER_WORDS[cond.joiner]), rules=joined)
    text = condition_text(cond).strip()
    return _("Always runs") if text == "true" else _("Runs if: {rules}").format(rules=text.replace("$args.", ""))


class GroupCard(ui.card):
    def __init__(self, ctx: EditorContext, group: GroupDraft, actions: CardActions, *, expanded: bool) -> None:
        super().__init__()
        self.classes("w-full gap-2 p-0").props("bordered")
        self.group = group
        self.ctx = dataclasses.replace(ctx, changed=self._changed, declare_input=self.declare_input)
        self.outer_ctx = ctx
        self.body_drawn = False
        self.tools: ToolList | None = None
        self.rules: RulesSection | None = None
        self.test: GroupTest | None = None
        self.sources: dict[str, str] = {}
        with self:
            with ui.row().classes("w-full items-center gap-3 no-wrap px-4 pt-3 cursor-pointer") \
                    .on("click", self.toggle).mark("group-header"):
                self.number = ui.label("").classes(
                    "rounded-full bg-primary text-white w-8 h-8 flex items-center justify-center font-bold shrink-0")
                with ui.column().classes("gap-0 grow min-w-0"):
                    self.title = ui.label("").classes("text-lg font-medium").mark("group-title")
                    self.summary = ui.label("").classes("text-sm text-gray-700 dark:text-gray-300") \
                        .mark("group-summary")
                with ui.row().classes("items-center gap-1 text-amber-800 dark:text-amber-300 no-wrap") as self.badge:
                    ui.icon("warning", color="amber-9")
                    self.badge_text = ui.label("").mark("group-problems")
                with ui.button(icon="more_vert").props("flat round dense").on("click.stop", lambda: None) \
                        .mark("group-menu"):
                    with ui.menu():
                        ui.menu_item(_("Move up"), lambda: actions.move(group, -1)).mark("group-move-up")
                        ui.menu_item(_("Move down"), lambda: actions.move(group, 1)).mark("group-move-down")
                        ui.menu_item(_("Duplicate"), lambda: actions.duplicate(group)).mark("group-duplicate")
                        if ctx.engine is not None:
                            ui.menu_item(_("Test this group"), self.open_test).mark("group-test-menu")
                        ui.menu_item(_("Delete"), lambda: actions.remove(group)).mark("group-delete")
                self.chevron = ui.icon("expand_more").classes("text-2xl")
            with ui.row().classes("w-full px-4 pb-2 gap-2 text-sm"):
                self.flow = ui.label("").classes("text-gray-700 dark:text-gray-300").mark("group-flow")
            self.card_error = ErrorLabel()
            self.card_error.classes("px-4")
            ctx.fields.register(f"{group.uid}.card", self, self.card_error)
            self.body = ui.column().classes("w-full gap-4 px-4 pb-4")
        self.set_problems(0)
        self.refresh_summary()
        self.set_expanded(expanded)

    # -- header -------------------------------------------------------------------------------
    def set_index(self, index: int) -> None:
        self.mark(f"group-{index + 1} group-card")
        self.number.set_text(str(index + 1))

    def set_sources(self, sources: dict[str, str]) -> None:
        """Where each input comes from ("group 1", "you, when you run it"), for the summary."""
        if sources != self.sources:
            self.sources = sources
            self.refresh_summary()

    def set_problems(self, count: int) -> None:
        self.badge.set_visibility(count > 0)
        self.badge_text.set_text(ngettext("{n} problem", "{n} problems", count).format(n=count))

    def refresh_summary(self) -> None:
        group = self.group
        self.title.set_text(group.name or _("Unnamed group"))
        self.title.classes(add=DATA) if group.name else self.title.classes(remove=DATA)  # a name: data
        parts = [when_words(group.when)]
        count = len(group.tools)
        tools = ngettext("{n} tool", "{n} tools", count).format(n=count)
        parts.append(_("{tools} · run together").format(tools=tools) if group.parallel
                     else _("{tools} · one by one").format(tools=tools))
        timeout = timeout_text(group)
        if timeout:
            amount = timeout[: -len(group.timeout_unit)]
            unit = UNIT_WORDS.get(group.timeout_unit)
            parts.append(_("Stops after {amount} {unit}").format(
                amount=amount, unit=_(unit) if unit else group.timeout_unit))
        fails = ON_ERROR_WORDS.get(group.on_error)
        parts.append(_("If a tool fails: {what}").format(what=_(fails) if fails else group.on_error))
        answered = asking_words(group) if self.ctx.team else None  # on the desktop the person answers
        if answered:
            parts.append(answered)
        self.summary.set_text(" · ".join(parts))
        self.flow.set_text(_("Needs {inputs} → gives {outputs}").format(
            inputs=_slots_text(group.declared("in"), self.sources), outputs=_slots_text(group.declared("out"))))

    # -- body ---------------------------------------------------------------------------------
    def toggle(self) -> None:
        self.set_expanded(not self.body.visible)

    def set_expanded(self, expanded: bool) -> None:
        if expanded and not self.body_drawn:
            self._draw_body()
        self.body.set_visibility(expanded)
        self.chevron.set_name("expand_less" if expanded else "expand_more")

    def _draw_body(self) -> None:
        self.body_drawn = True
        group, ctx = self.group, self.ctx
        with self.body:
            with ui.row().classes("w-full gap-4 items-start sd-stack"):
                name = ui.input(_("Group name"), value=group.name, on_change=self._set_name) \
                    .classes("w-72").mark("group-name")
                name.props['hint'] = _("Unique across all your sequences")
                description = ui.input(_("What it does"), value=group.description, on_change=self._set_description) \
                    .classes("grow").mark("group-description")
            ctx.fields.register(f"{group.uid}.name", name)
            ctx.fields.register(f"{group.uid}.description", description)
            with ui.row().classes("w-full gap-6 items-start no-wrap sd-stack"):
                self.inputs = SlotList(ctx, group, "in", self._slots_changed)
                self.outputs = SlotList(ctx, group, "out", self._slots_changed)
            ui.separator()
            self.tools = ToolList(ctx, group, on_new_output=self.outputs.declare)
            ui.separator()
            self.rules = RulesSection(ctx, group, on_parallel=self._parallel_changed)
            if ctx.team:
                ui.separator()
                AnswerersSection(ctx, group)
            else:
                DesktopAnswerers(ctx, group)
            if ctx.engine is not None:
                self.test_box = ui.column().classes("w-full gap-2")
                with self.test_box:
                    self.test_button = ui.button(_("Test this group"), icon="science", on_click=self.open_test) \
                        .props("outline no-caps").mark("group-test-open")

    def open_test(self) -> None:
        """Open the group's test beside its fields (drawn on first use: it follows the engine's events)."""
        self.set_expanded(True)
        if self.test is None and self.ctx.engine is not None:
            self.test_button.set_visibility(False)
            with self.test_box:
                self.test = GroupTest(self.ctx.engine, self.group, self.ctx.tools)

    def declare_input(self, name: str, type_name: str) -> None:
        """The data picker chose what an earlier group gives: this group now declares it as an input."""
        if name in self.group.declared("in"):
            return
        self.set_expanded(True)
        self.inputs.declare(name, type_name)

    def _set_name(self, e: object) -> None:
        self.group.name = getattr(e, "value", "") or ""
        self._changed()

    def _set_description(self, e: object) -> None:
        self.group.description = getattr(e, "value", "") or ""
        self._changed()

    def _slots_changed(self) -> None:
        if self.test is not None:
            self.test.refresh_inputs()
        if self.tools is not None:
            self.tools.update_slots()
        if self.rules is not None:
            self.rules.update_slots()
        self._changed()

    def _parallel_changed(self) -> None:
        if self.tools is not None:
            self.tools.refresh()

    def _changed(self) -> None:
        self.refresh_summary()
        self.outer_ctx.changed()

    def add_tool(self, name: str) -> None:
        self.set_expanded(True)
        assert self.tools is not None
        self.tools.add_tool(name)
