"""A tool that asks before it runs: its input as labelled values, what the tool does, and the
caller's explanation clearly marked as *not verified* (an agent's words are no safety basis).

Its input can be changed before it runs ("Change the input before it runs", one box per value). A
changed value is struck through with the change under it, and "Approve" becomes "Approve with your
changes" (the A key too): the change is what the tool runs with, once it fits the tool's schema.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui
from nicegui.elements.mixins.disableable_element import DisableableElement

from gui.core.asks import ToolApprovalRequest
from gui.i18n import DATA, _
from gui.ui.components.inbox.body import ApprovalBody, Submit, bound_inputs_view, section_label
from gui.ui.components.inbox.edit import FADED, read_value
from gui.wording.changes import value_text
from gui.wording.glossary import NOTHING
from gui.wording.requests import input_label, server_of, server_place


class ToolApprovalCard(ApprovalBody):
    def __init__(self, request: ToolApprovalRequest, *, submit: Submit, tool_name: str | None) -> None:
        super().__init__(submit)
        self.request, self.tool_name = request, tool_name
        self.titles = request.input_titles  # the tool's own words for its arguments, unit and all
        self.mark("tool-approval")
        asked = request.validated_input
        self.asked: dict[str, Any] | None = asked if isinstance(asked, dict) and asked and tool_name else None
        self.boxes: dict[str, ui.textarea] = {}
        self.summary_row: ui.row | None = None
        with self:
            summary = request.summary_words(_)
            if summary:
                self.summary_row = _summary(summary, request.summary_highlight)
            if request.tool_description:
                section_label(_("What this tool does"))
                ui.label(_(request.tool_description)).classes("text-sm")
            if request.server_address or request.host:
                with ui.grid(columns="auto 1fr").classes("gap-x-4 gap-y-1 text-sm items-baseline"):
                    if request.server_address:  # the MCP server whose tool it is, by the name given it in Settings
                        ui.label(_("Its server")).classes("opacity-70")
                        with ui.column().classes("gap-0 min-w-0"):
                            server = server_of(request)
                            if server:
                                ui.label(server).classes(f"font-semibold {DATA}").mark("server-name")
                            ui.label(server_place(request.server_address)).classes(
                                f"text-xs opacity-80 break-all {DATA}" if server else f"break-all {DATA}") \
                                .mark("server-address")
                    if request.host:
                        ui.label(_("On host")).classes("opacity-70")
                        ui.label(request.host).classes(f"font-mono font-semibold {DATA}").mark("host")
            section_label(_("It would run with"))
            self.values = _input_view(asked, self.titles)
            bound_inputs_view(request.bound_inputs)
            if request.model_explanation:
                with ui.card().props("flat bordered").classes("w-full p-3 gap-1"):
                    with ui.row().classes("items-center gap-2"):
                        ui.icon("report", color="warning")
                        ui.label(_("The caller says (not verified)")).classes("text-sm font-medium").mark(
                            "not-verified")
                    ui.label(request.model_explanation).classes(f"text-sm italic {DATA}")
                    ui.label(_("This explanation comes from whoever asked for the tool; check the input above "
                               "rather than trusting it.")).classes("text-xs opacity-70")
            if self.asked is not None:
                self._edit_area(self.asked)
            self.answers(approve=(_("Approve"), "check"), deny=_("Deny"),
                         allow_more=_("for this run, this sequence, or always"),
                         edited=(_("Approve with your changes"), "edit_note"))

    def _edit_area(self, asked: dict[str, Any]) -> None:
        with ui.expansion(_("Change the input before it runs"), icon="edit").classes("w-full text-sm") \
                .props("dense").mark("edit-input"):
            for key, value in asked.items():
                box = self.control(ui.textarea(input_label(str(key), self.titles), value=value_text(value))
                                   .props("outlined autogrow dense").classes("w-full font-mono")
                                   .mark(f"edited-{key}"))
                box.on_value_change(self.edit_changed)
                self.boxes[str(key)] = box
            self.undo = self.control(
                ui.button(_("Undo my changes"), icon="undo", on_click=self._undo, color=None)
                .props("no-caps flat dense").classes("text-gray-800 dark:text-gray-200").mark("undo-edit"))
            self.undo.set_visibility(False)

    def _approve_side(self) -> list[DisableableElement]:
        return [*self.boxes.values(), self.undo] if self.boxes else []

    def edit(self) -> dict[str, Any] | None:
        if self.asked is None:
            return None
        edited = {key: read_value(str(self.boxes[str(key)].value or ""), value) if str(key) in self.boxes else value
                  for key, value in self.asked.items()}
        return None if edited == self.asked else edited

    def show_change(self, edit: dict[str, Any] | None) -> None:
        asked = self.asked or {}
        for key, (original, changed_to) in self.values.items():
            changed = edit is not None and edit.get(key) != asked.get(key)
            if changed:
                original.classes(add=FADED)
                changed_to.set_text(value_text(edit.get(key)) or _("(empty text)") if edit is not None else "")
            else:
                original.classes(remove=FADED)
            changed_to.set_visibility(changed)
        if self.summary_row is not None:
            if edit is not None:
                self.summary_row.classes(add=FADED)
            else:
                self.summary_row.classes(remove=FADED)
        if hasattr(self, "undo"):
            self.undo.set_visibility(edit is not None)

    def _undo(self) -> None:
        if self.asked is None or self.locked:
            return
        for key, value in self.asked.items():
            if str(key) in self.boxes:
                self.boxes[str(key)].set_value(value_text(value))


def _summary(text: str, highlight: str | None) -> ui.row:
    """The sentence with the part to check (the file, the web server) in bold."""
    with ui.row().classes("w-full items-baseline gap-0 text-base").mark("approval-summary") as row:
        before, found, after = text.partition(highlight) if highlight else (text, "", "")
        if before:
            ui.label(before).classes("whitespace-pre-wrap break-all")
        if found:
            ui.label(found).classes("font-bold whitespace-pre-wrap break-all").mark("approval-highlight")
        if after:
            ui.label(after).classes("whitespace-pre-wrap break-all")
    return row


def _input_view(value: Any, titles: dict[str, str]) -> dict[str, tuple[ui.label, ui.label]]:
    """Top-level fields as label/value rows; anything nested also as indented JSON. Returns, per field,
    its value and the (hidden) place its change is shown."""
    shown: dict[str, tuple[ui.label, ui.label]] = {}
    if isinstance(value, dict) and value:
        with ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-1 text-sm items-baseline").mark("tool-input"):
            for key, item in value.items():
                ui.label(input_label(str(key), titles)).classes("opacity-70")
                text = _(NOTHING) if item is None else value_text(item, indent=2)
                data = f" {DATA}" if item is not None else ""
                with ui.column().classes("gap-0 min-w-0"):
                    original = ui.label(text).classes("font-mono whitespace-pre-wrap break-all" + data).mark(
                        f"asked-{key}")
                    changed = ui.label().classes(f"font-mono whitespace-pre-wrap break-all border-l-4 "
                                                 f"border-amber-500 pl-2 {DATA}").mark(f"changed-{key}")
                    changed.set_visibility(False)
                shown[str(key)] = (original, changed)
        return shown
    text = value_text(value, indent=2) if value is not None else "null"
    ui.code(text, language="json").classes("w-full").mark("tool-input")
    return shown
