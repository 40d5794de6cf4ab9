"""An argument that is a list of small forms: the questions of `ask_user`, each with its choices.

A schema that says "a list of objects with these fields" becomes cards with one field per
property and "Add a question" below them, instead of a box in which a person would have to write
JSON. Fields follow the item schema (text, number, on/off, a choice for enums, and a nested list
for a list inside an item); an emptied field is left out of its item, so the tool's own default
applies. Whatever the form cannot show stays editable as JSON (`on_json`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeGuard

from nicegui import ui

from gui.i18n import N_, _
from gui.ui.editor.argspec import ArgSpec
from gui.wording.glossary import said

Items = list[dict[str, Any]]


def fits_form(value: Any) -> TypeGuard[Items]:
    """Whether a value can be shown as a list of forms (a list whose items are all objects)."""
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def as_items(value: Any, spec: ArgSpec) -> Items | None:
    """A list argument as the cards show it, or None when they cannot. Choices written as plain
    labels (`["a", "b"]`, which the tool reads as `[{"label": "a"}, …]`) are shown as items with that
    label; they are written back as items only when the person changes the list."""
    if value is None:
        return []
    if fits_form(value):
        return value
    labelled = any(field.name == "label" for field in spec.fields)
    if labelled and isinstance(value, list) and all(isinstance(v, str | dict) for v in value):
        return [v if isinstance(v, dict) else {"label": v} for v in value]
    return None


def _article(word: str) -> str:
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


# ask_user's kinds of answer as a choice says them ("single_select" as "single select"), for the catalogue
_CHOICE_WORDS = (N_("text"), N_("single select"), N_("multi select"))


def _choice_word(choice: Any) -> str:
    word = str(choice).replace("_", " ")
    return _(word) if word in _CHOICE_WORDS else word


def _label(spec: ArgSpec) -> str:
    return said(spec.title) + (" *" if spec.required else "")


class ListField(ui.column):
    def __init__(self, spec: ArgSpec, items: Items, on_change: Callable[[Items], None], *,
                 on_json: Callable[[], None] | None = None, nested: bool = False) -> None:
        super().__init__()
        self.classes("w-full gap-2").mark(f"list-{spec.name}")
        self.spec, self.items, self._on_change = spec, items, on_change
        self.word = spec.item_title or "item"  # the schema's word for one item (Question, Choice)
        with self:
            with ui.row().classes("w-full items-baseline gap-2"):
                ui.label(_label(spec)).classes("text-sm font-medium")
                if nested and spec.description:
                    ui.label(said(spec.description)).classes("text-xs text-gray-600 dark:text-gray-400")
            self.box = ui.column().classes("w-full gap-2")
            with ui.row().classes("items-center gap-2"):
                ui.button(_("Add {an_item}").format(an_item=self._an_item()), icon="add", on_click=self._add) \
                    .props("outline dense no-caps").mark(f"list-{spec.name}-add")
                if on_json is not None:
                    ui.button(_("Edit as JSON"), icon="data_object", on_click=on_json) \
                        .props("flat dense no-caps").mark(f"list-{spec.name}-json")
        self._draw()

    def _item_word(self) -> str:
        """The item's word as it sits inside a sentence ("question"; the same word translated)."""
        word = said(self.word)
        return self.word.lower() if word == self.word else word

    def _an_item(self) -> str:
        word = said(self.word)
        return _article(self.word.lower()) if word == self.word else word

    def _none_yet(self) -> str:
        word = said(self.word)
        return f"No {self.word.lower()}s yet." if word == self.word else _("No {items} yet.").format(items=word)

    def _draw(self) -> None:
        self.box.clear()
        with self.box:
            if not self.items:
                ui.label(self._none_yet()).classes("text-sm italic text-gray-500 dark:text-gray-400")
            for index, item in enumerate(self.items):
                self._item(index, item)

    def _item(self, index: int, item: dict[str, Any]) -> None:
        with ui.card().props("flat bordered").classes("w-full p-3 gap-1").mark(f"{self.spec.name}-{index + 1}"):
            with ui.row().classes("w-full items-center gap-1 no-wrap"):
                ui.label(_("{item} {number}").format(item=said(self.word), number=index + 1)) \
                    .classes("font-medium grow")
                ui.button(icon="arrow_upward", on_click=lambda i=index: self._move(i, -1)) \
                    .props("flat round dense").tooltip(_("Move up"))
                ui.button(icon="arrow_downward", on_click=lambda i=index: self._move(i, 1)) \
                    .props("flat round dense").tooltip(_("Move down"))
                ui.button(icon="close", on_click=lambda i=index: self._remove(i)) \
                    .props("flat round dense").tooltip(_("Remove this {item}").format(item=self._item_word())) \
                    .mark(f"{self.spec.name}-{index + 1}-remove")
            for field in self.spec.fields:
                self._field(item, field)

    def _field(self, item: dict[str, Any], spec: ArgSpec) -> None:
        value = item.get(spec.name)
        marker = f"{self.spec.name}-{spec.name}"

        def put(new: Any, name: str = spec.name) -> None:
            if new is None or (isinstance(new, str) and not new.strip()):
                item.pop(name, None)
            else:
                item[name] = int(new) if isinstance(new, float) and new.is_integer() else new
            self._on_change(self.items)

        start = as_items(value, spec) if spec.kind == "list" else None
        if start is not None:
            ListField(spec, start, on_change=lambda new: put(new or None), nested=True)
            return
        element: ui.element
        if spec.kind == "list":  # what the cards cannot show (a list of numbers): as JSON, never emptied
            element = ui.input(_("{field} (JSON)").format(field=_label(spec)),
                               value=json.dumps(value, ensure_ascii=False),
                               on_change=lambda e: put(_json_or_text(e.value)))
        elif spec.kind == "enum":
            shown = value if value in spec.choices else spec.default if spec.default in spec.choices else None
            options = {c: _choice_word(c) for c in spec.choices}
            element = ui.select(options, label=_label(spec), value=shown, on_change=lambda e: put(e.value))
        elif spec.kind == "number":
            element = ui.number(_label(spec), value=value if isinstance(value, int | float) else None,
                                on_change=lambda e: put(e.value))
        elif spec.kind == "bool":
            element = ui.switch(_label(spec), value=bool(value if value is not None else spec.default),
                                on_change=lambda e: put(bool(e.value)))
        elif spec.kind in ("json", "any") and value is not None and not isinstance(value, str):
            element = ui.input(_("{field} (JSON)").format(field=_label(spec)),
                               value=json.dumps(value, ensure_ascii=False),
                               on_change=lambda e: put(_json_or_text(e.value)))
        else:
            element = ui.input(_label(spec), value=value if isinstance(value, str) else "",
                               on_change=lambda e: put(e.value))
        element.classes("w-full").props("dense").mark(marker)
        if spec.description:
            element.props["hint"] = said(spec.description)

    def _add(self) -> None:
        self.items.append({})
        self._draw()
        self._on_change(self.items)

    def _remove(self, index: int) -> None:
        self.items.pop(index)
        self._draw()
        self._on_change(self.items)

    def _move(self, index: int, delta: int) -> None:
        target = index + delta
        if 0 <= target < len(self.items):
            self.items.insert(target, self.items.pop(index))
            self._draw()
            self._on_change(self.items)


def _json_or_text(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except json.JSONDecodeError:
        return text
