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

from gui.core.names import arg_ref
from gui.ui.editor.argspec import ArgSpec
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import ArgDraft, GroupDraft, ToolDraft
from gui.ui.editor.fields import ErrorLabel
from gui.ui.editor.list_field import ListField, fits_form
from gui.ui.words import type_word

MODES = {"value": "Type a value", "input": "Use an input"}


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
            with ui.row().classes("w-full items-start gap-3 no-wrap"):
                self.body = ui.column().classes("grow gap-0 min-w-0")
                ui.toggle(MODES, value=self.arg.mode, on_change=self._mode_changed) \
                    .props("no-caps unelevated toggle-color=primary padding='8px 14px'") \
                    .classes("mt-2 shrink-0").mark(f"arg-{spec.name}-mode")
            self.note = ui.label("").classes("text-sm text-amber-800 dark:text-amber-300")
            self.error = ErrorLabel()
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
        self.note.set_text("")
        self.note.set_visibility(False)
        self.error.show(None)
        with self.body:
            widget = self._input_select() if self.arg.mode == "input" else self._value_widget()
        from nicegui.elements.mixins.validation_element import ValidationElement

        label = None if isinstance(widget, ValidationElement) else self.error
        self.ctx.fields.register(self.key, widget, label)
        if label is None and self.spec.description and not widget.props.get("hint"):
            widget.props["hint"] = self.spec.description
        elif label is not None and self.spec.description:
            with self.body:
                ui.label(self.spec.description).classes("text-xs text-gray-600 dark:text-gray-400")
        self.note.set_visibility(bool(self.note.text))

    @property
    def title(self) -> str:
        return self.spec.title + (" *" if self.spec.required else "")

    # -- bound to an input -------------------------------------------------------------------
    def _input_select(self) -> ui.element:
        declared = self.group.declared("in")
        fits = {n: t for n, t in declared.items() if t in self.spec.compatible}
        options: dict[Any, str] = {n: f"⤷ Input: {n} · {type_word(t)}" for n, t in fits.items()}
        current = self.arg.input
        if current and current not in options:
            if current in declared:
                options[current] = f"⤷ Input: {current} · {type_word(declared[current])}"
                need = " or ".join(type_word(t) for t in self.spec.compatible)
                self.note.set_text(f"Needs {need}; {current} is {type_word(declared[current])}")
            else:
                options[current] = f"⤷ {current} (not an input of this group)"
        select = ui.select(options, value=current, label=f"{self.title} (from an input)",
                           on_change=self._input_changed).classes("w-full").mark(f"arg-{self.spec.name}-input")
        if not declared:
            select.props['hint'] = "This group has no inputs yet: add one under Inputs first."
        elif not fits and not current:
            need = " or ".join(type_word(t) for t in self.spec.compatible)
            select.props['hint'] = f"No input of this group is {need}."
        return select

    def _input_changed(self, e: Any) -> None:
        self.arg.input = e.value
        self.on_change()

    # -- a typed value -------------------------------------------------------------------------
    def _value_widget(self) -> ui.element:
        spec, arg = self.spec, self.arg
        kind = spec.kind if arg.text is not None or _fits(spec, arg.value) else "any"
        marker = f"arg-{spec.name}-value"
        if kind == "text":
            text = ui.input(self.title, value=arg.value or "", on_change=self._set_value)
            self._insert_button(text)
            widget: ui.element = text
        elif kind == "number":
            widget = ui.number(self.title, value=arg.value, on_change=self._set_number)
        elif kind == "bool":
            start = arg.value if arg.value is not None else bool(spec.default)
            widget = ui.switch(self.title, value=start, on_change=self._set_value)
        elif kind == "enum":
            options = {None: "(default)", **{c: str(c) for c in spec.choices}}
            widget = ui.select(options, label=self.title, value=arg.value, on_change=self._set_value)
        elif kind == "list" and arg.text is None:
            return ListField(spec, arg.value if arg.value is not None else [], on_change=self._set_items,
                             on_json=self._to_json)
        else:
            return self._text_widget(kind, marker)
        return widget.classes("w-full").mark(marker)

    def _shell_args(self) -> frozenset[str]:
        found = self.ctx.tool(self.tool.tool)
        return found.shell_text_args if found is not None else frozenset()

    def _insert_button(self, field: ui.input) -> None:
        """"Put an input in the text": writes `$args.<name>` where a person would not guess the syntax."""
        with field.add_slot("append"):
            tip = ("Put an input in this command: it goes in as one quoted word, never as a command of its own"
                   if self.spec.name in self._shell_args() else "Put an input in this text")
            button = ui.button(icon="input").props("flat round dense size=sm").tooltip(tip) \
                .mark(f"arg-{self.spec.name}-insert")
            with button:
                menu = ui.menu()

        def fill() -> None:
            menu.clear()
            with menu:
                declared = self.group.declared("in")
                if not declared:
                    ui.menu_item("This group has no inputs yet: add one under Inputs.").props("disable")
                for name, type_name in declared.items():
                    ui.menu_item(f"{name} · {type_word(type_name)}", lambda n=name: put(n)).mark(f"insert-{name}")

        def put(name: str) -> None:
            current = str(field.value or "")
            field.value = f"{current} {arg_ref(name)}" if current else arg_ref(name)

        button.on("click", fill)

    def _text_widget(self, kind: str, marker: str) -> ui.element:
        arg = self.arg
        if arg.text is None and arg.value is not None:
            if kind == "any" and isinstance(arg.value, str):
                arg.text, arg.as_json = arg.value, False
            else:
                arg.text, arg.as_json = json.dumps(arg.value, ensure_ascii=False, indent=2), True
        if kind in ("json", "list"):
            arg.as_json = True
            area = ui.textarea(f"{self.title} (JSON)", value=arg.text or "", on_change=self._set_text) \
                .props("autogrow").classes("w-full font-mono").mark(marker)
            example = "[…]" if self.spec.json_types == ("array",) else "{…}"
            area.props['hint'] = f"{self.spec.description} Written as JSON, like {example}".strip()
            if kind == "list":
                ui.button("Use the form", icon="view_list", on_click=self._to_form) \
                    .props("flat dense no-caps").mark(f"arg-{self.spec.name}-form")
            return area
        with ui.row().classes("w-full items-start gap-2 no-wrap"):
            widget = ui.input(self.title, value=arg.text or "", on_change=self._set_text) \
                .classes("grow").mark(marker)
            ui.select({False: "as text", True: "as JSON"}, value=arg.as_json, on_change=self._set_json_flag) \
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
            ui.notify("The form can show this once it is a JSON list of objects, like [{…}, {…}]: fix it here first.",
                      type="warning")
            return
        self.arg.value, self.arg.text, self.arg.as_json = value, None, False
        self._draw()
        self.on_change()

    def _set_value(self, e: Any) -> None:
        self.arg.value = e.value
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
