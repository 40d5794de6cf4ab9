"""A tool inside a group: its name and description, its argument form, and where its result goes.

The form comes from the tool's JSON schema (see `argspec`); arguments the schema does not know
(a tool whose server is offline, a misspelt name from the text view) still get a field, so nothing
the person wrote disappears. "Save result to" offers only the group's declared outputs; a slot that
is not declared stays visible, marked, instead of being dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.tools import ToolInfo
from gui.i18n import DATA, _
from gui.ui.editor.arg_field import ArgField
from gui.ui.editor.argspec import unknown_spec
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import ArgDraft, GroupDraft, ToolDraft
from gui.ui.editor.fields import ErrorLabel
from gui.wording.glossary import said, said_type


def _unset(arg: ArgDraft | None) -> bool:
    if arg is None:
        return True
    if arg.mode == "input":
        return not arg.input
    return arg.value is None and not (arg.text or "").strip()


def result_note(tool_name: str, result_type: str | None, slot: str | None, slot_type: str | None) -> str:
    """Words for a result that will not fit its output (known before running only when the tool says
    what it gives back); "" when it fits or nobody can tell."""
    if not result_type or not slot or not slot_type or slot_type == result_type:
        return ""
    return _("{tool} gives back {a_type}, but the output '{slot}' is {slot_type}: change the type of '{slot}' "
             "to {type}, or the run will stop at this step.").format(
        tool=tool_name, a_type=_a(result_type), slot=slot, slot_type=said_type(slot_type), type=said_type(result_type))


def _a(type_name: str) -> str:
    """A type with its article ("a text", "an object"), in the person's language."""
    word = said_type(type_name)
    return (_("an {type}") if word[:1] in "aeiou" else _("a {type}")).format(type=word)


def tool_description(tool: ToolInfo) -> str:
    """What a tool does: a built-in's words from the catalogue; an MCP server's as the server wrote them."""
    text = str(tool.description or "")
    return text if tool.server or not text else _(text)


NEW_OUTPUT = "__new_output__"  # the "Save result to" choice that declares a new output


def save_to_options(group: GroupDraft, current: str | None, result_type: str | None = None) -> dict[Any, str]:
    options: dict[Any, str] = {None: _("Don't save the result")}
    for name, type_name in group.declared("out").items():
        options[name] = _("{name} · {type}").format(name=name, type=said_type(type_name))
    if current is not None and current not in options:
        options[current] = _("{name} (not an output of this group)").format(name=current)
    options[NEW_OUTPUT] = _("A new output for this result ({type})").format(type=said_type(result_type)) \
        if result_type else _("A new output for this result")
    return options


def new_output_name(group: GroupDraft, tool: str) -> str:
    """A free output name for a tool's result: `answers` for ask_user, else `<tool>_result`."""
    base = {"ask_user": "answers", "cmd_run": "output", "file_read": "text", "http_get": "response"}.get(
        tool, f"{tool.split('.')[-1]}_result")
    taken = set(group.declared("out")) | set(group.declared("in"))
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


class ToolRow(ui.card):
    def __init__(self, ctx: EditorContext, group: GroupDraft, tool: ToolDraft, *,
                 on_move: Callable[[ToolDraft, int], None], on_remove: Callable[[ToolDraft], None],
                 on_change: Callable[[], None], on_new_output: Callable[[str, str], None] | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-1 p-3").props("flat bordered")
        self.ctx, self.group, self.tool, self.on_change = ctx, group, tool, on_change
        self.on_new_output = on_new_output
        self.fields: list[ArgField] = []
        found = ctx.tool(tool.tool)
        specs = ctx.specs(tool.tool) or []
        with self:
            with ui.row().classes("w-full items-center gap-2 no-wrap sd-wrap"):
                self.number = ui.label("").classes("text-gray-600 dark:text-gray-400 text-sm w-5")
                ui.icon("build" if found else "help_outline", color="primary" if found else "amber-9")
                with ui.column().classes("gap-0 grow min-w-[12rem]"):
                    ui.label(tool.tool).classes(f"font-mono font-bold {DATA}").mark("tool-name")
                    if found is not None:
                        ui.label(tool_description(found)).classes("text-xs text-gray-600 dark:text-gray-400") \
                            .classes(DATA if found.server else "")
                    else:
                        ui.label(_("This tool is not available now (its server may be offline). "
                                   "What happens at run time is set under If a tool is not available.")) \
                            .classes("text-xs text-amber-800 dark:text-amber-300")
                ui.button(icon="arrow_upward", on_click=lambda: on_move(tool, -1)) \
                    .props("flat round dense").tooltip(_("Move up")).mark("tool-up")
                ui.button(icon="arrow_downward", on_click=lambda: on_move(tool, 1)) \
                    .props("flat round dense").tooltip(_("Move down")).mark("tool-down")
                ui.button(icon="delete_outline", on_click=lambda: on_remove(tool)) \
                    .props("flat round dense").tooltip(_("Remove this tool")).mark("tool-remove")
            self.tool_error = ErrorLabel()
            ctx.fields.register(f"{tool.uid}.tool", self, self.tool_error)
            known = {s.name for s in specs}
            shown = specs + [unknown_spec(n) for n in tool.args if n not in known]
            extra = [s for s in shown if not s.required and _unset(tool.args.get(s.name))]
            for spec in shown:
                if spec not in extra:
                    self.fields.append(ArgField(ctx, group, tool, spec, on_change))
            if extra:
                titles = _(", ").join(said(s.title) for s in extra)
                with ui.expansion(_("More options: {titles}").format(titles=titles), icon="tune") \
                        .classes("w-full text-sm") \
                        .props("dense").mark("more-options"):
                    for spec in extra:
                        self.fields.append(ArgField(ctx, group, tool, spec, on_change))
            self.result_type: str | None = found.result_type if found is not None else None
            self.save_to = ui.select(save_to_options(group, tool.save_to, self.result_type), value=tool.save_to,
                                     label=_("Save result to"), on_change=self._save_to_changed) \
                .classes("w-full").mark("save-to")
            if self.result_type:
                self.save_to.props["hint"] = _("It gives back {a_type}.").format(a_type=_a(self.result_type))
            ctx.fields.register(f"{tool.uid}.as", self.save_to)
            self.fit_note = ui.label("").classes("text-sm text-amber-800 dark:text-amber-300").mark("result-note")
            if tool.asking:  # this step's own answerers, over its group's: said, and kept as written
                keys = ", ".join(f"{key} {json.dumps(value, ensure_ascii=False)}" for key, value in tool.asking.items())
                ui.label(_("This step's own answerers (edit them in the Text view): {keys}").format(keys=keys)) \
                    .classes(f"text-sm {DATA}").mark("tool-asking")
        self._update_fit()

    def set_index(self, index: int) -> None:
        self.mark(f"tool-{index + 1} tool-row")
        self.number.set_text(f"{index + 1}.")

    def _save_to_changed(self, e: Any) -> None:
        if e.value == NEW_OUTPUT:  # declare an output of the result's own type, and save into it
            name = new_output_name(self.group, self.tool.tool)
            if self.on_new_output is not None:
                self.on_new_output(name, self.result_type or "string")
            self.tool.save_to = name
            self.save_to.set_options(save_to_options(self.group, name, self.result_type), value=name)
            self._update_fit()
            self.on_change()
            return
        self.tool.save_to = e.value
        self._update_fit()
        self.on_change()

    def _update_fit(self) -> None:
        slot = self.tool.save_to
        note = result_note(self.tool.tool, self.result_type, slot, self.group.declared("out").get(slot or ""))
        self.fit_note.set_text(note)
        self.fit_note.set_visibility(bool(note))

    def update_slots(self) -> None:
        """The group's inputs or outputs changed: offer the new names, keep what was chosen."""
        self.save_to.set_options(save_to_options(self.group, self.tool.save_to, self.result_type),
                                 value=self.tool.save_to)
        self._update_fit()
        for field in self.fields:
            field.update_slots()

