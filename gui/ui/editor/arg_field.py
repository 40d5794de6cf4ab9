"""One argument of a tool: typed in, or bound to one of the group's inputs.

The choice is a large two-way toggle ("Type a value | Use an input") rather than a tiny switch or a
free-text expression: binding is picking a declared input from a list, which writes `$args.<name>`,
so a reference can never point at an input that was not offered. The list offers inputs of a
compatible type; one that no longer fits stays selected, with an amber note saying why.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.i18n import DATA, N_, _
from gui.ui.editor import chips
from gui.ui.editor.argspec import ArgSpec
from gui.ui.editor.context import EditorContext, Given
from gui.ui.editor.draft import ArgDraft, GroupDraft, ToolDraft
from gui.ui.editor.fields import ErrorLabel
from gui.ui.editor.list_field import ListField, fits_form
from gui.wording.glossary import said, said_choices, said_type

MODES = {"value": N_("Type a value"), "input": N_("Use an input")}
GIVEN = "__given__:"  # an option of the data picker: what an earlier group gives, declared when picked


def _fits(spec: ArgSpec, value: Any) -> bool:
    """Whether a loaded value can be shown in the widget of the spec's kind."""
    if value is None:
        return True
    if spec.kind in ("text", "enum"):
        return isinstance(value, str) and (spec.kind == "text" or value in spec.choices)
    if spec.kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if spec.kind == "bool":
        return isinstance(value, bool)
    if spec.kind == "list":
        return fits_form(value)
    return True


class ArgField(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft, tool: ToolDraft, spec: ArgSpec,
                 on_change: Callable[[], None]) -> None:
        super().__init__()
        self.classes("w-full gap-1 py-1").mark(f"arg-{spec.name}")
        self.ctx, self.group, self.tool, self.spec, self.on_change = ctx, group, tool, spec, on_change
        self.arg = tool.args.setdefault(spec.name, ArgDraft())
        self.key = f"{tool.uid}.arg.{spec.name}"
        with self:
            with ui.row().classes("w-full items-start gap-3 no-wrap sd-stack"):
                self.body = ui.column().classes("grow gap-0 min-w-0")
                ui.toggle(said_choices(MODES), value=self.arg.mode, on_change=self._mode_changed) \
                    .props("no-caps unelevated toggle-color=primary padding='8px 14px'") \
                    .classes("mt-2 shrink-0").mark(f"arg-{spec.name}-mode")
            self.chip_row = ui.row().classes("w-full gap-1").mark(f"arg-{spec.name}-chips")
            self.note = ui.label("").classes("text-sm text-amber-800 dark:text-amber-300")
            self.error = ErrorLabel()
        self.text_field: ui.input | None = None
        self.text_attr = "value"  # where the shown text lives in the draft: `value`, or `text` (any type)
        self._draw()

    def _mode_changed(self, e: Any) -> None:
        self.arg.mode = e.value
        self._draw()
        self.on_change()

    def update_slots(self) -> None:
        if self.arg.mode == "input":
            self._draw()

    def _draw(self) -> None:
        self.body.clear()
        self.text_field = None
        self.note.set_text("")
        self.note.set_visibility(False)
        self.error.show(None)
        with self.body:
            widget = self._input_select() if self.arg.mode == "input" else self._value_widget()
        from nicegui.elements.mixins.validation_element import ValidationElement

        label = None if isinstance(widget, ValidationElement) else self.error
        self.ctx.fields.register(self.key, widget, label)
        described = said(self.spec.description)
        if label is None and described and not widget.props.get("hint"):
            widget.props["hint"] = described
        elif label is not None and described:
            with self.body:
                ui.label(described).classes("text-xs text-gray-600 dark:text-gray-400")
        self.note.set_visibility(bool(self.note.text))
        self._chips()

    @property
    def title(self) -> str:
        return said(self.spec.title) + (" *" if self.spec.required else "")

    # -- bound to an input -------------------------------------------------------------------
    def _offers(self) -> tuple[dict[str, str], list[Given]]:
        """The group's inputs, and what earlier groups give back that it does not declare yet."""
        declared = self.group.declared("in")
        return declared, [g for g in self.ctx.earlier(self.group) if g.name not in declared]

    def _input_select(self) -> ui.element:
        declared, given = self._offers()
        fits = {n: t for n, t in declared.items() if t in self.spec.compatible}
        sources = {g.name: g.group for g in self.ctx.earlier(self.group)}
        options: dict[Any, str] = {
            n: (_("⤷ Input: {name} · {type} (from group {number})") if n in sources
                else _("⤷ Input: {name} · {type}")).format(name=n, type=said_type(t), number=sources.get(n))
            for n, t in fits.items()}
        options.update({f"{GIVEN}{g.name}": g.label for g in given if g.type in self.spec.compatible})
        current = self.arg.input
        if current and current not in options:
            if current in declared:
                options[current] = _("⤷ Input: {name} · {type}").format(name=current,
                                                                       type=said_type(declared[current]))
                need = _(" or ").join(said_type(t) for t in self.spec.compatible)
                self.note.set_text(_("Needs {need}; {name} is {type}").format(
                    need=need, name=current, type=said_type(declared[current])))
            else:
                options[current] = _("⤷ {name} (not an input of this group)").format(name=current)
        select = ui.select(options, value=current, label=_("{field} (from an input)").format(field=self.title),
                           on_change=self._input_changed).classes("w-full").mark(f"arg-{self.spec.name}-input")
        if len(options) == 0:
            need = _(" or ").join(said_type(t) for t in self.spec.compatible)
            select.props['hint'] = (_("This group has no inputs yet: add one under Inputs first.") if not declared
                                    and not given else _("No input of this group, and nothing earlier groups give, "
                                                         "is {need}.").format(need=need))
        return select

    def _input_changed(self, e: Any) -> None:
        value = e.value
        if isinstance(value, str) and value.startswith(GIVEN):
            value = self._declare_given(value[len(GIVEN):])
        self.arg.input = value
        self.on_change()

    def _declare_given(self, name: str) -> str:
        """Picking what an earlier group gives declares it as an input of this group, for the person."""
        given = next((g for g in self.ctx.earlier(self.group) if g.name == name), None)
        if given is not None:
            self.arg.input = name
            self.ctx.declare_input(name, given.type)  # redraws this field with the new input chosen
            source = _("what you give when you run") if given.from_you else \
                _("what group {number} gives back").format(number=given.group)
            ui.notify(_("'{name}' is now an input of this group: it gets {source}").format(name=name, source=source),
                      type="info")
        return name

    # -- a typed value -------------------------------------------------------------------------
    def _value_widget(self) -> ui.element:
        spec, arg = self.spec, self.arg
        kind = spec.kind if arg.text is not None or _fits(spec, arg.value) else "any"
        marker = f"arg-{spec.name}-value"
        if kind == "text":
            self.text_attr = "value"
            text = ui.input(self.title, value=chips.to_display(arg.value or ""), on_change=self._set_shown_text)
            self._insert_button(text)
            self.text_field = text
            widget: ui.element = text
        elif kind == "number":
            widget = ui.number(self.title, value=arg.value, on_change=self._set_number)
        elif kind == "bool":
            start = arg.value if arg.value is not None else bool(spec.default)
            widget = ui.switch(self.title, value=start, on_change=self._set_value)
        elif kind == "enum":
            options = {None: _("(default)"), **{c: str(c) for c in spec.choices}}
            widget = ui.select(options, label=self.title, value=arg.value, on_change=self._set_value)
        elif kind == "list" and arg.text is None:
            return ListField(spec, arg.value if arg.value is not None else [], on_change=self._set_items,
                             on_json=self._to_json)
        else:
            return self._text_widget(kind, marker)
        return widget.classes("w-full").mark(marker)

    def _shell_args(self) -> frozenset[str]:
        found = self.ctx.tool(self.tool.tool)
        return frozenset(found.shell_text_args) if found is not None else frozenset()

    def _insert_button(self, field: ui.input) -> None:
        """"Put an input in the text": a mark ⤷name goes in where a person would not guess the format."""
        with field.add_slot("append"):
            tip = (_("Put an input in this command: it goes in as one quoted word, never as a command of its own")
                   if self.spec.name in self._shell_args() else _("Put an input in this text"))
            button = ui.button(icon="input").props("flat round").tooltip(tip).mark(f"arg-{self.spec.name}-insert")
            button.props["aria-label"] = _("Put an input in the text")
            with button:
                menu = ui.menu()

        def fill() -> None:
            menu.clear()
            declared, given = self._offers()
            with menu:
                if not declared and not given:
                    ui.menu_item(_("This group has no inputs yet: add one under Inputs.")).props("disable")
                for name, type_name in declared.items():
                    ui.menu_item(_("⤷ {name} · {type}").format(name=name, type=said_type(type_name)),
                                 lambda n=name: put_in(n)) \
                        .mark(f"insert-{name}")
                for g in given:
                    ui.menu_item(g.label, lambda n=g.name: put_in(n, declare=True)).mark(f"insert-{g.name}")

        def put_in(name: str, *, declare: bool = False) -> None:
            self._store(chips.put(self._stored(), name))
            if declare:
                self._declare_given(name)
            field.value = chips.to_display(self._stored())
            self._chips()
            self.on_change()

        button.on("click", fill)

    def _chips(self) -> None:
        """Each input used inside the text as a chip ("⤷ host ✕"): the ✕ takes it out of the text."""
        self.chip_row.clear()
        shown = self.arg.mode == "value" and self.text_field is not None
        names = chips.refs(self._stored()) if shown else []
        self.chip_row.set_visibility(bool(names))
        with self.chip_row:
            for name in names:
                ui.chip(f"⤷ {name}", removable=True, color="primary", text_color="white",
                        on_value_change=lambda e, n=name: self._unchip(n) if not e.value else None) \
                    .props("dense").classes(DATA).mark(f"chip-{name}")

    def _stored(self) -> str:
        value = getattr(self.arg, self.text_attr)
        return value if isinstance(value, str) else ""

    def _store(self, text: str) -> None:
        setattr(self.arg, self.text_attr, text)

    def _unchip(self, name: str) -> None:
        self._store(chips.without(self._stored(), name))
        if self.text_field is not None:
            self.text_field.value = chips.to_display(self._stored())
        self._chips()
        self.on_change()

    def _text_widget(self, kind: str, marker: str) -> ui.element:
        arg = self.arg
        if arg.text is None and arg.value is not None:
            if kind == "any" and isinstance(arg.value, str):
                arg.text, arg.as_json = arg.value, False
            else:
                arg.text, arg.as_json = json.dumps(arg.value, ensure_ascii=False, indent=2), True
        if kind in ("json", "list"):
            arg.as_json = True
            area = ui.textarea(_("{field} (JSON)").format(field=self.title), value=arg.text or "",
                               on_change=self._set_text) \
                .props("autogrow").classes("w-full font-mono").mark(marker)
            example = "[…]" if self.spec.json_types == ("array",) else "{…}"
            area.props['hint'] = _("{description} Written as JSON, like {example}").format(
                description=said(self.spec.description), example=example).strip()
            if kind == "list":
                ui.button(_("Use the form"), icon="view_list", on_click=self._to_form) \
                    .props("flat dense no-caps").mark(f"arg-{self.spec.name}-form")
            return area
        with ui.row().classes("w-full items-start gap-2 no-wrap sd-wrap"):
            self.text_attr = "text"
            widget = ui.input(self.title, value=chips.to_display(arg.text or ""), on_change=self._set_shown_text) \
                .classes("grow").mark(marker)
            self._insert_button(widget)
            self.text_field = widget
            ui.select({False: _("as text"), True: _("as JSON")}, value=arg.as_json, on_change=self._set_json_flag) \
                .props("dense borderless options-dense").classes("w-28").mark(f"arg-{self.spec.name}-as")
        return widget

    def _set_items(self, items: list[dict[str, Any]]) -> None:
        """An emptied list of an optional argument is left out, so the tool's default applies."""
        self.arg.value = items if items or self.spec.required else None
        self.on_change()

    def _to_json(self) -> None:
        self.arg.text = json.dumps(self.arg.value or [], ensure_ascii=False, indent=2)
        self.arg.as_json = True
        self._draw()
        self.on_change()

    def _to_form(self) -> None:
        try:
            value = json.loads(self.arg.text or "[]")
        except json.JSONDecodeError:
            value = None
        if not fits_form(value):
            ui.notify(_("The form can show this once it is a JSON list of objects, like [{…}, {…}]: "
                        "fix it here first."), type="warning")
            return
        self.arg.value, self.arg.text, self.arg.as_json = value, None, False
        self._draw()
        self.on_change()

    def _set_value(self, e: Any) -> None:
        self.arg.value = e.value
        self.on_change()

    def _set_shown_text(self, e: Any) -> None:
        """The field shows ⤷marks; the draft keeps the format's references."""
        value = chips.from_display(e.value or "")
        if value == getattr(self.arg, self.text_attr):
            return
        self._store(value)
        self._chips()
        self.on_change()

    def _set_number(self, e: Any) -> None:
        self.arg.value = e.value
        self.on_change()

    def _set_text(self, e: Any) -> None:
        self.arg.text = e.value
        self.on_change()

    def _set_json_flag(self, e: Any) -> None:
        self.arg.as_json = bool(e.value)
        self.on_change()
