"""A group's rules in words: when it runs, whether its tools run together, what a failure does,
what a missing tool does, and its time limit as a number and a unit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.i18n import _
from gui.ui.editor.condition import ConditionBuilder
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import GroupDraft
from gui.ui.editor.fields import ErrorLabel
from gui.wording.glossary import MISSING_WORDS, ON_ERROR_WORDS, UNIT_WORDS, said_choices


class RulesSection(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft, on_parallel: Callable[[], None]) -> None:
        super().__init__()
        self.classes("w-full gap-2").mark("rules")
        self.ctx, self.group, self.on_parallel = ctx, group, on_parallel
        with self:
            self.condition = ConditionBuilder(ctx, group)
            parallel = ui.switch(_("Run tools at the same time"), value=group.parallel, on_change=self._set_parallel) \
                .mark("group-parallel")
            parallel_error = ErrorLabel()
            ctx.fields.register(f"{group.uid}.parallel", parallel, parallel_error)
            with ui.row().classes("w-full gap-4 items-start"):
                on_error = ui.select(said_choices(ON_ERROR_WORDS), value=group.on_error, label=_("If a tool fails"),
                                     on_change=lambda e: self._set("on_error", e.value)) \
                    .classes("w-64").mark("group-on-error")
                missing = ui.select(said_choices(MISSING_WORDS), value=group.missing,
                                    label=_("If a tool is not available"),
                                    on_change=lambda e: self._set("missing", e.value)) \
                    .classes("w-72").mark("group-missing")
                with ui.row().classes("items-start gap-1 no-wrap"):
                    timeout = ui.number(_("Time limit"), value=group.timeout_amount, on_change=self._set_amount) \
                        .classes("w-32").mark("group-timeout")
                    timeout.props['hint'] = _("Empty: no limit")
                    ui.select(said_choices(UNIT_WORDS), value=group.timeout_unit, label=_("Unit"),
                              on_change=lambda e: self._set("timeout_unit", e.value)) \
                        .classes("w-32").mark("group-timeout-unit")
            ctx.fields.register(f"{group.uid}.on_error", on_error)
            ctx.fields.register(f"{group.uid}.missing", missing)
            ctx.fields.register(f"{group.uid}.timeout", timeout)

    def _set(self, attr: str, value: Any) -> None:
        setattr(self.group, attr, value)
        self.ctx.changed()

    def _set_amount(self, e: Any) -> None:
        self.group.timeout_amount = e.value
        self.ctx.changed()

    def _set_parallel(self, e: Any) -> None:
        self.group.parallel = bool(e.value)
        self.on_parallel()
        self.ctx.changed()

    def update_slots(self) -> None:
        self.condition.update_slots()
