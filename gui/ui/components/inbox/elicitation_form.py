"""A form a tool server asks a person to fill in (MCP elicitation), or a page it asks them to open.

Who asks comes first and stands out (the MCP spec: show the requester, let people edit before
sending). It draws the core's `ElicitationRequest` as the server's form was made into it, and sends
an `ElicitationResponse`, the answer the server receives. Fields are typed: text, number, on/off, or
a choice for enums; required ones are marked and checked before sending; defaults are filled in.
Never a password field: servers must not collect secrets this way. Send / Don't share / Dismiss
map to accept / decline / cancel.
"""

from __future__ import annotations

import math
from typing import Any

from nicegui import ui

from gui.core.asks import ElicitationField, ElicitationRequest, ElicitationResponse
from gui.i18n import DATA, _
from gui.ui.components.inbox.body import RequestBody, Submit, mono_block

Field = ui.input | ui.number | ui.switch | ui.select


class ElicitationForm(RequestBody):
    def __init__(self, request: ElicitationRequest, *, submit: Submit) -> None:
        super().__init__(submit)
        self.mark("elicitation-form")
        self.specs = request.fields
        with self:
            with ui.row().classes("items-center gap-2"):
                ui.icon("dns", size="sm", color="primary")
                ui.label(request.server_name).classes(f"text-lg font-bold {DATA}").mark("server-name")
                ui.label(_("asks:")).classes("text-sm opacity-70")
            ui.markdown(request.message).classes("w-full inbox-markdown").mark("elicitation-message")
            opens: list[ui.button] = []
            if request.url:
                ui.label(_("It asks you to open this page and finish there:")).classes("text-sm")
                mono_block(request.url, marker="elicitation-url")
                opens.append(ui.button(_("Open"), icon="open_in_new",
                                       on_click=lambda: ui.navigate.to(request.url or "", new_tab=True))
                             .props("no-caps outline").mark("open-url"))
            hints = {True: _("Required"), False: _("Optional")}  # under a field the server did not describe
            self._fields = {spec.name: _field(spec, hints[spec.required]) for spec in request.fields}
            self.problem = ui.label("").classes("text-negative text-sm").mark("form-problem")
            self.problem.set_visibility(False)
            with ui.row().classes("gap-2 items-center"):
                answers = (
                    ui.button(_("Done") if request.url and not request.fields else _("Send"), icon="send",
                              on_click=self._accept).props("no-caps unelevated color=primary").mark("accept"),
                    ui.button(_("Don't share"), icon="do_not_disturb_on", on_click=self._decline)
                    .props("no-caps outline color=negative").mark("decline"),
                    ui.button(_("Dismiss"), icon="close", on_click=self._cancel).props("no-caps flat").mark("cancel"))
            ui.label(_("Don't share tells {server} you refuse; Dismiss just closes the form "
                       "and lets it carry on without an answer.").format(server=request.server_name)
                     ).classes("text-xs opacity-70")
        for element in (*opens, *self._fields.values(), *answers):  # all stop working once the request has ended
            self.control(element)

    def values(self) -> tuple[dict[str, Any], list[str]]:
        """The typed values to send, and the names of required fields left empty."""
        values: dict[str, Any] = {}
        missing: list[str] = []
        for spec in self.specs:
            value = _value(spec, self._fields[spec.name].value)
            if value is None:
                if spec.required:
                    missing.append(spec.name)
                continue
            values[spec.name] = value
        return values, missing

    async def _accept(self) -> None:
        values, missing = self.values()
        for spec in self.specs:
            element = self._fields[spec.name]
            if not isinstance(element, ui.switch):
                element.error = _("Fill this in: it is required") if spec.name in missing else None
        if missing:
            titles = ", ".join(spec.title or spec.name for spec in self.specs if spec.name in missing)
            self.problem.set_text(_("Fill in the required fields before sending: {fields}").format(fields=titles))
            self.problem.set_visibility(True)
            return
        self.problem.set_visibility(False)
        await self.send(ElicitationResponse.accept(values))

    async def _decline(self) -> None:
        await self.send(ElicitationResponse.decline())

    async def _cancel(self) -> None:
        await self.send(ElicitationResponse.cancel())


def _field(spec: ElicitationField, hint: str) -> Field:
    """The field's input, with `hint` under it when the server did not describe it."""
    label = (spec.title or spec.name) + (" *" if spec.required else "")
    hint = spec.description or hint
    element: Field
    if spec.enum and spec.multiple:
        chosen = [v for v in spec.default if v in spec.enum] if isinstance(spec.default, list) else []
        element = ui.select(list(spec.enum), label=label, value=chosen, multiple=True, clearable=True).props(
            "use-chips")
    elif spec.enum:
        default = spec.default if spec.default in spec.enum else None
        element = ui.select(list(spec.enum), label=label, value=default, clearable=not spec.required)
    elif spec.type == "boolean":
        element = ui.switch(label, value=bool(spec.default))
        if spec.description:
            ui.label(spec.description).classes("text-xs opacity-70 -mt-2 pl-12")
        return element.mark(f"field-{spec.name}")
    elif spec.type == "number":
        default = spec.default if isinstance(spec.default, int | float) and not isinstance(spec.default, bool) else None
        element = ui.number(label, value=default, min=spec.minimum, max=spec.maximum,
                            step=1 if spec.integer else None)
    else:
        element = ui.input(label, value=spec.default if isinstance(spec.default, str) else "")
    element.props("outlined dense").classes("w-full").mark(f"field-{spec.name}")
    element.props["hint"] = hint
    return element


def _value(spec: ElicitationField, raw: Any) -> Any:
    """What a field holds, as the type the server declared; None when it is empty."""
    if spec.type == "boolean":
        return bool(raw)
    if spec.multiple:
        return list(raw) if isinstance(raw, list | tuple) and raw else None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if spec.type == "number":
        number = float(raw)
        if not math.isfinite(number):
            return None
        return int(number) if number.is_integer() else number
    return raw
