"""The form for a run's args, generated from the sequence's signature.

Text → a text box (left empty, it says so, unless the person ticks that empty is meant), number →
a number box, yes/no → a switch, list and object → a JSON box that says what is wrong with what was
typed. `values()` checks every field at once, shows each problem under its own field and never clears
what the person typed; it returns None while anything is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nicegui import ui

from gui.core.sequences import SlotType
from gui.i18n import N_, _

TYPE_WORDS = {SlotType.STRING: N_("text"), SlotType.NUMBER: N_("number"), SlotType.BOOLEAN: N_("yes / no"),
              SlotType.ARRAY: N_("list, as JSON"), SlotType.OBJECT: N_("object, as JSON")}
EXAMPLES = {SlotType.ARRAY: '["first", "second"]', SlotType.OBJECT: '{"key": "value"}'}


def json_problem(text: str | None, slot_type: SlotType) -> str | None:
    """What is wrong with `text` as a JSON value of `slot_type`; None when it fits."""
    if not (text or "").strip():
        return _("Enter a {kind}, like {example}").format(kind=_(TYPE_WORDS[slot_type]).split(",")[0].split("，")[0],
                                                            example=EXAMPLES[slot_type])
    try:
        value = json.loads(text or "")
    except json.JSONDecodeError as exc:
        return _("This is not valid JSON: {problem} (line {line}, column {column})").format(
            problem=exc.msg, line=exc.lineno, column=exc.colno)
    wanted = list if slot_type is SlotType.ARRAY else dict
    if not isinstance(value, wanted):
        return (_("Write a list, like {example}") if wanted is list
                else _("Write a JSON object, like {example}")).format(example=EXAMPLES[slot_type])
    return None


def number_value(value: float | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else float(value)


class RunArgsForm(ui.column):
    def __init__(self, inputs: Mapping[str, SlotType], initial: Mapping[str, Any] | None = None, *,
                 empty_text_asks: bool = True) -> None:
        """`empty_text_asks=False`: an empty text box is left to the caller's own rule (a schedule's
        core refuses empty text outright: nobody is there to fill it in)."""
        super().__init__()
        self.empty_text_asks = empty_text_asks
        self.classes("w-full gap-2")
        self.inputs = dict(inputs)
        self.fields: dict[str, Any] = {}
        initial = initial or {}
        with self:
            if not self.inputs:
                ui.label(_("This sequence needs no inputs.")).classes("text-gray-600 dark:text-gray-400").mark(
                    "no-inputs")
            for name, slot_type in self.inputs.items():
                self.fields[name] = self._field(name, slot_type, initial.get(name))

    def _field(self, name: str, slot_type: SlotType, value: Any) -> Any:
        label = f"{name} ({_(TYPE_WORDS[slot_type])})"
        if slot_type is SlotType.STRING and self.empty_text_asks:
            return self._text_field(name, label, value)
        if slot_type is SlotType.STRING:
            field: Any = ui.input(label, value=value if isinstance(value, str) else "")
        elif slot_type is SlotType.NUMBER:
            field = ui.number(label, value=value if isinstance(value, int | float) else None,
                              validation=lambda v: None if v is not None else _("Enter a number"))
        elif slot_type is SlotType.BOOLEAN:
            field = ui.switch(label, value=bool(value))
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False) if value is not None else ""
            field = ui.textarea(label, value=text, placeholder=EXAMPLES[slot_type],
                                validation=lambda v, t=slot_type: json_problem(v, t)).props("autogrow")
            field.classes("font-mono")
        return field.classes("w-full max-w-xl").mark(f"arg-{name}")

    def _text_field(self, name: str, label: str, value: Any) -> ui.input:
        """A text box that a person may not leave empty by oversight: an empty one says so under it
        and offers “Run with … empty”, for a sequence where empty text means something. A value that
        was empty before (a run done again) starts with that ticked."""
        with ui.column().classes("w-full max-w-xl gap-0"):
            field = ui.input(label, value=value if isinstance(value, str) else "").classes("w-full").mark(f"arg-{name}")
            empty = ui.checkbox(_("Run with {name} empty").format(name=name), value=value == "") \
                .props("dense").classes("text-sm").mark(f"arg-{name}-empty")
        empty.set_visibility(value == "")

        def check(text: str | None) -> str | None:
            if text or empty.value:
                return None
            empty.set_visibility(True)
            return _("Enter the text for {name}, or tick “Run with {name} empty”").format(name=name)

        field.validation = check
        empty.on_value_change(lambda: field.validate())
        return field

    def values(self) -> dict[str, Any] | None:
        """The args as JSON values, or None after showing every problem under its field."""
        result: dict[str, Any] = {}
        ok = True
        for name, slot_type in self.inputs.items():
            field = self.fields[name]
            if slot_type is not SlotType.BOOLEAN and (slot_type is not SlotType.STRING or self.empty_text_asks) \
                    and not field.validate():
                ok = False
                continue
            if slot_type is SlotType.NUMBER:
                result[name] = number_value(field.value)
            elif slot_type in (SlotType.ARRAY, SlotType.OBJECT):
                result[name] = json.loads(field.value)
            elif slot_type is SlotType.BOOLEAN:
                result[name] = bool(field.value)
            else:
                result[name] = field.value or ""
        return result if ok else None
