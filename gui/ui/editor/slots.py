"""A group's inputs or outputs as rows of name + type, with the five types said in words.

A row keeps whatever is typed, even a blank or repeated name (the draft reports those), and the
list tells its group when names or types change, so the tool forms and the condition builder
offer the current names without being drawn again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from nicegui import ui

from gui.i18n import _
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import GroupDraft, SlotRow
from gui.ui.editor.fields import ErrorLabel
from gui.wording.glossary import TYPE_WORDS, said_choices


class SlotList(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft, which: Literal["in", "out"],
                 on_slots_changed: Callable[[], None]) -> None:
        super().__init__()
        self.classes("w-full gap-1").mark("inputs" if which == "in" else "outputs")
        self.ctx, self.group, self.which = ctx, group, which
        self.on_slots_changed = on_slots_changed
        self.noun = "input" if which == "in" else "output"
        with self:
            title = _("Inputs") if which == "in" else _("Outputs")
            hint = (_("Values this group needs. Use them in tool arguments and in the condition.")
                    if which == "in" else _("Where this group's tools can save their results."))
            ui.label(title).classes("font-medium")
            ui.label(hint).classes("text-xs text-gray-600 dark:text-gray-400")
            self.rows = ui.column().classes("w-full gap-0")
            self.error = ErrorLabel()
            ctx.fields.register(f"{group.uid}.{which}", self, self.error)
            ui.button(_("Add an input") if which == "in" else _("Add an output"), icon="add", on_click=self._add) \
                .props("flat dense no-caps").mark(f"add-{self.noun}")
        self._draw()

    @property
    def items(self) -> list[SlotRow]:
        return self.group.inputs if self.which == "in" else self.group.outputs

    def _draw(self) -> None:
        self.rows.clear()
        with self.rows:
            if not self.items:
                ui.label(_("No inputs.") if self.which == "in" else _("No outputs.")) \
                    .classes("text-sm text-gray-500 dark:text-gray-400 italic")
            for index, row in enumerate(self.items):
                self._row(index, row)

    def _row(self, index: int, row: SlotRow) -> None:
        with ui.row().classes("w-full items-start gap-2 no-wrap").mark(f"{self.which}-{index + 1}"):
            name = ui.input(_("Name of the input") if self.which == "in" else _("Name of the output"), value=row.name,
                            on_change=lambda e, r=row: self._set(r, "name", e.value)) \
                .classes("grow").props("dense").mark("slot-name")
            kind = ui.select(said_choices(TYPE_WORDS), value=row.type, label=_("Type"),
                             on_change=lambda e, r=row: self._set(r, "type", e.value)) \
                .classes("w-28").props("dense").mark("slot-type")
            ui.button(icon="close", on_click=lambda r=row: self._remove(r)) \
                .props("flat round dense").mark("slot-remove") \
                .tooltip(_("Remove this input") if self.which == "in" else _("Remove this output"))
        self.ctx.fields.register(f"{row.uid}.name", name)
        self.ctx.fields.register(f"{row.uid}.type", kind)

    def _set(self, row: SlotRow, attr: str, value: Any) -> None:
        setattr(row, attr, value if value is not None else "")
        self.on_slots_changed()

    def _add(self) -> None:
        self.items.append(SlotRow())
        self._draw()
        self.on_slots_changed()

    def declare(self, name: str, type_name: str) -> None:
        """Declare `name` of `type_name` (from a tool's "Save result to": a new output of its result's type)."""
        self.items.append(SlotRow(name=name, type=type_name))
        self._draw()
        self.on_slots_changed()

    def _remove(self, row: SlotRow) -> None:
        self.items.remove(row)
        self._draw()
        self.on_slots_changed()
