"""The condition builder for `when`: rules of input · operator · value, joined by and / or.

Only the group's declared inputs are offered, so a rule cannot read an input that does not exist;
a rule whose input was since removed keeps its choice, marked, so the validator's message has
something to point at. Whatever rows cannot express (parentheses, `not`, mixed and/or) is written
as text; "Use the rule builder" comes back only when the text fits rows again.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from gui.core.sequences import ConditionSyntaxError, condition_rows, parse_condition
from gui.i18n import N_, _
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import CondRow, GroupDraft, condition_text
from gui.ui.editor.fields import ErrorLabel
from gui.wording.glossary import JOINER_WORDS, OPERATOR_WORDS, said_choices, said_type

_BOOL_WORDS = {True: N_("yes (true)"), False: N_("no (false)")}


class ConditionBuilder(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft) -> None:
        super().__init__()
        self.classes("w-full gap-1").mark("condition")
        self.ctx, self.group, self.cond = ctx, group, group.when
        with self:
            ui.label(_("Run this group only if…")).classes("font-medium")
            self.body = ui.column().classes("w-full gap-1")
            self.error = ErrorLabel()
        self._draw()

    def _changed(self) -> None:
        self.ctx.changed()

    def _draw(self) -> None:
        self.body.clear()
        self.error.show(None)
        with self.body:
            if self.cond.mode == "text":
                self._text_mode()
            else:
                self._rows_mode()

    def update_slots(self) -> None:
        if self.cond.mode == "rows" and self.cond.rows:
            self._draw()

    # -- rules ---------------------------------------------------------------------------------
    def _rows_mode(self) -> None:
        key = f"{self.group.uid}.when"
        self.ctx.fields.register(key, self, self.error)
        rows = self.cond.rows
        if not rows:
            ui.label(_("Always runs")).classes("text-sm text-gray-700 dark:text-gray-300").mark("always-runs")
        if len(rows) > 1:
            ui.select(said_choices(JOINER_WORDS), value=self.cond.joiner, label=_("Run when"),
                      on_change=self._set_joiner) \
                .classes("w-64").props("dense").mark("cond-joiner")
        for index, row in enumerate(rows):
            self._rule(index, row)
        with ui.row().classes("gap-2"):
            ui.button(_("Add a rule"), icon="add", on_click=self._add_rule).props("flat dense no-caps").mark("add-rule")
            ui.button(_("Write the condition as text"), icon="edit_note", on_click=self._to_text) \
                .props("flat dense no-caps").mark("cond-to-text")

    def _rule(self, index: int, row: CondRow) -> None:
        declared = self.group.declared("in")
        options: dict[Any, str] = {name: _("{name} · {type}").format(name=name, type=said_type(t))
                                   for name, t in declared.items()}
        if row.arg and row.arg not in options:
            options[row.arg] = _("{name} (not an input of this group)").format(name=row.arg)
        arg_type = declared.get(row.arg or "")
        with ui.row().classes("w-full items-start gap-2 no-wrap sd-wrap").mark(f"cond-{index + 1}"):
            arg = ui.select(options, value=row.arg, label=_("Input"),
                            on_change=lambda e, r=row: self._set_arg(r, e.value)) \
                .classes("w-48").props("dense").mark("cond-arg")
            op = ui.select(said_choices(OPERATOR_WORDS), value=row.op, label=_("Compare"),
                           on_change=lambda e, r=row: self._set(r, "op", e.value)) \
                .classes("w-40").props("dense").mark("cond-op")
            value = self._value_widget(row, arg_type)
            ui.button(icon="close", on_click=lambda r=row: self._remove(r)) \
                .props("flat round dense").tooltip(_("Remove this rule")).mark("cond-remove")
        if not declared:
            arg.props['hint'] = _("Add an input to this group first")
        self.ctx.fields.register(f"{row.uid}.arg", arg)
        self.ctx.fields.register(f"{row.uid}.op", op)
        self.ctx.fields.register(f"{row.uid}.value", value)

    def _value_widget(self, row: CondRow, arg_type: str | None) -> ui.element:
        def set_value(e: Any, r: CondRow = row) -> None:
            self._set(r, "value", e.value)

        value = row.value
        if arg_type == "number" and (value is None or isinstance(value, int | float)) and not isinstance(value, bool):
            widget: ui.element = ui.number(_("Value"), value=value, on_change=set_value)
        elif arg_type == "boolean" and (value is None or isinstance(value, bool)):
            widget = ui.select(said_choices(_BOOL_WORDS), value=value, label=_("Value"), on_change=set_value)
        else:
            widget = ui.input(_("Value"), value="" if value is None else str(value), on_change=set_value) \
                .props("stack-label")
            widget.props["placeholder"] = _("(empty text)")
            if value is None:
                row.value = ""
        return widget.classes("grow").props("dense").mark("cond-value")

    def _set_arg(self, row: CondRow, name: str | None) -> None:
        old_type = self.group.declared("in").get(row.arg or "")
        row.arg = name
        new_type = self.group.declared("in").get(name or "")
        if new_type != old_type:
            row.value = _convert(row.value, new_type)
            self._draw()
        self._changed()

    def _set(self, row: CondRow, attr: str, value: Any) -> None:
        if attr == "value" and isinstance(value, float) and value.is_integer():
            value = int(value)
        setattr(row, attr, value)
        self._changed()

    def _set_joiner(self, e: Any) -> None:
        self.cond.joiner = e.value
        self._changed()

    def _add_rule(self) -> None:
        declared = list(self.group.declared("in"))
        row = CondRow(arg=declared[0] if len(declared) == 1 else None, op="==")
        if row.arg:
            row.value = _convert("", self.group.declared("in")[row.arg])
            if row.value == "":
                row.op = "!="  # "host is not empty": what a rule on a text input most often asks
        self.cond.rows.append(row)
        self._draw()
        self._changed()

    def _remove(self, row: CondRow) -> None:
        self.cond.rows.remove(row)
        self._draw()
        self._changed()

    def _to_text(self) -> None:
        self.cond.text = condition_text(self.cond) if self.cond.rows else ""
        self.cond.mode = "text"
        self._draw()
        self._changed()

    # -- text ----------------------------------------------------------------------------------
    def _text_mode(self) -> None:
        area = ui.textarea(_("Condition"), value=self.cond.text, on_change=self._set_text) \
            .props("autogrow").classes("w-full font-mono").mark("group-when")
        area.props['hint'] = _("Written in the condition format; Use the rule builder writes it for you. "
                               "Leave it empty to always run.")
        self.ctx.fields.register(f"{self.group.uid}.when", area)
        self.back = ui.button(_("Use the rule builder"), icon="tune", on_click=self._to_rows) \
            .props("flat dense no-caps").mark("cond-to-rows")
        self._update_back()

    def _set_text(self, e: Any) -> None:
        self.cond.text = e.value or ""
        self._update_back()
        self._changed()

    def _update_back(self) -> None:
        self.back.set_enabled(_rows_of(self.cond.text) is not None)

    def _to_rows(self) -> None:
        fitted = _rows_of(self.cond.text)
        if fitted is None:
            return
        rows, joiner = fitted
        self.cond.rows = [CondRow(arg=r["arg"], op=r["op"], value=r["value"]) for r in rows]
        self.cond.joiner = "or" if joiner == "or" else "and"
        self.cond.mode = "rows"
        self._draw()
        self._changed()


def _rows_of(text: str) -> tuple[list[dict[str, Any]], str] | None:
    if not text.strip():
        return [], "and"
    try:
        return condition_rows(parse_condition(text))
    except ConditionSyntaxError:
        return None


def _convert(value: Any, type_name: str | None) -> Any:
    """A rule's value carried over to another input's type, never dropped when it does not fit."""
    if type_name == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        try:
            number = float(str(value))
        except ValueError:
            return None if value in ("", None) else value
        return int(number) if number.is_integer() else number
    if type_name == "boolean":
        if isinstance(value, bool):
            return value
        return {"true": True, "false": False}.get(str(value).lower(), None if value in ("", None) else value)
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
