"""A tool that asks before it runs: its input as labelled values, what the tool does, and the
caller's explanation clearly marked as *not verified* (an agent's words are no safety basis)."""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.core.interactions import ToolApprovalRequest
from gui.i18n import DATA, _
from gui.ui.components.inbox.body import ApprovalBody, Submit, bound_inputs_view, section_label
from gui.ui.words import NOTHING, field_word


class ToolApprovalCard(ApprovalBody):
    def __init__(self, request: ToolApprovalRequest, *, submit: Submit, tool_name: str | None) -> None:
        super().__init__(submit)
        self.request, self.tool_name = request, tool_name
        self.mark("tool-approval")
        with self:
            summary = request.summary_words(_)
            if summary:
                _summary(summary, request.summary_highlight)
            if request.tool_description:
                section_label(_("What this tool does"))
                ui.label(_(request.tool_description)).classes("text-sm")
            section_label(_("It would run with"))
            _input_view(request.validated_input)
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
            self.answers(approve=(_("Approve"), "check"), deny=_("Deny"),
                         allow_more=_("for this run, this sequence, or always"))


def _summary(text: str, highlight: str | None) -> None:
    """The sentence with the part to check (the file, the web server) in bold."""
    with ui.row().classes("w-full items-baseline gap-0 text-base").mark("approval-summary"):
        before, found, after = text.partition(highlight) if highlight else (text, "", "")
        if before:
            ui.label(before).classes("whitespace-pre-wrap break-all")
        if found:
            ui.label(found).classes("font-bold whitespace-pre-wrap break-all").mark("approval-highlight")
        if after:
            ui.label(after).classes("whitespace-pre-wrap break-all")


def _input_view(value: Any) -> None:
    """Top-level fields as label/value rows; anything nested also as indented JSON."""
    if isinstance(value, dict) and value:
        with ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-1 text-sm items-baseline").mark("tool-input"):
            for key, item in value.items():
                ui.label(_(field_word(str(key)))).classes("opacity-70")
                text = item if isinstance(item, str) else _(NOTHING) if item is None else json.dumps(
                    item, ensure_ascii=False, indent=2)
                data = f" {DATA}" if item is not None else ""
                ui.label(text).classes("font-mono whitespace-pre-wrap break-all" + data)
        return
    ui.code(json.dumps(value, ensure_ascii=False, indent=2), language="json").classes("w-full").mark("tool-input")
