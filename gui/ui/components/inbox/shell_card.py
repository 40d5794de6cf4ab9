"""A command that wants to run: shown in full, with where and why, and three plain choices.

"Run once", "Allow more…" and "Don't run" (with an optional note the tool receives, so it can tell
the sequence what to do instead). "Allow more…" opens a choice that names its scope; it is never the
default and has no shortcut.

The command can be changed before it runs ("Edit the command before it runs"). Changed, the command
as asked is struck through with the change under it, "Run once" becomes "Run the edited command"
(and so does the A key): the change is what runs. Changed back to what was asked, it is as before.
`gui.ui.components.inbox.edit` says why "Allow more…" is off meanwhile.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui
from nicegui.elements.mixins.disableable_element import DisableableElement

from gui.core.asks import ShellApprovalRequest, program_of
from gui.core.sequences import as_text, shell_words
from gui.i18n import DATA, N_, _
from gui.ui.components.inbox.body import ApprovalBody, Submit, bound_inputs_view, mono_block, section_label
from gui.ui.components.inbox.edit import FADED

OPERATION_WORDS = {"exec": N_("Run a command and wait for it"), "start": N_("Start a program that keeps running"),
                   "write": N_("Write to a file")}


def _inserted(request: ShellApprovalRequest) -> dict[str, tuple[str, ...]]:
    """How each input reads in the command: quoted, escaped inside "…", or the whole command itself."""
    inserted: dict[str, tuple[str, ...]] = {}
    for name, value in request.bound_inputs.items():
        whole = (as_text(value),) if as_text(value) == request.command else ()
        inserted[name] = shell_words(value) + whole
    return inserted


class ShellApprovalCard(ApprovalBody):
    edited: ui.textarea | None = None
    undo: ui.button

    def __init__(self, request: ShellApprovalRequest, *, submit: Submit, tool_name: str | None) -> None:
        super().__init__(submit)
        self.request, self.tool_name = request, tool_name
        self.mark("shell-approval")
        tool_input = request.tool_input
        self.asked_command = tool_input.get("command") if tool_input is not None else None
        program = program_of(request) is not None  # its words are shown as they are, never looked up
        with self:
            if request.description:
                ui.label(request.description if program else _(request.description)).classes(
                    "text-sm whitespace-pre-wrap break-words").mark("approval-text")
            self.wants = section_label(_("Wants to run"))
            self.asked = mono_block(request.command, marker="command",
                                    inputs=_inserted(request))
            self.asked.mark("asked-command")
            with ui.column().classes("w-full gap-1").mark("edited-preview") as self.preview:
                section_label(_("Changed by you: this runs instead"))
                with ui.row().classes("w-full rounded inbox-mono border-l-4 border-amber-500"):
                    self.preview_text = ui.label().classes(
                        f"font-mono text-sm whitespace-pre-wrap break-all grow p-3 {DATA}").mark("edited-command-text")
            self.preview.set_visibility(False)
            self.wants.set_visibility(bool(request.command))
            self.asked.set_visibility(bool(request.command))
            bound_inputs_view(request.bound_inputs, request.run_as_code)
            with ui.grid(columns="auto 1fr").classes("gap-x-4 gap-y-1 text-sm items-baseline") as facts:
                if request.host:  # a team's host runs it, not this computer
                    ui.label(_("On host")).classes("opacity-70")
                    ui.label(request.host).classes(f"font-mono font-semibold {DATA}").mark("host")
                ui.label(_("In folder")).classes("opacity-70")
                if request.host and not request.cwd:
                    ui.label(_("the folder the worker of {host} was started in").format(host=request.host)).mark("cwd")
                else:
                    ui.label(request.cwd).classes(f"font-mono break-all {DATA}").mark("cwd")
                ui.label(_("Why")).classes("opacity-70")
                ui.label(_(request.reason) if request.reason else _("No reason given"))
                ui.label(_("What it does")).classes("opacity-70")
                ui.label(_(OPERATION_WORDS.get(request.operation, request.operation)))
            facts.set_visibility(not program or bool(request.cwd))
            if isinstance(self.asked_command, str):
                with ui.expansion(_("Edit the command before it runs"), icon="edit").classes("w-full text-sm") \
                        .props("dense").mark("edit-command"):
                    self.edited = self.control(
                        ui.textarea(value=self.asked_command).props("outlined autogrow")
                        .classes("w-full font-mono").mark("edited-command"))
                    self.edited.on_value_change(self.edit_changed)
                    self.undo = self.control(
                        ui.button(_("Undo my change"), icon="undo", on_click=self._undo, color=None)
                        .props("no-caps flat dense").classes("text-gray-800 dark:text-gray-200").mark("undo-edit"))
                    self.undo.set_visibility(False)
            self.answers(approve=(_("Run once"), "play_arrow") if not program else (_("Approve"), "check"),
                         deny=_("Don't run") if not program else _("Deny"),
                         allow_more=_("for this run, this sequence, some commands, or always") if not program
                         else _("whenever it asks the same again"),
                         edited=(_("Run the edited command"), "edit_note"))

    def _approve_side(self) -> list[DisableableElement]:
        return [self.edited, self.undo] if self.edited is not None else []

    def edit(self) -> dict[str, Any] | None:
        tool_input = self.request.tool_input if isinstance(self.request, ShellApprovalRequest) else None
        if self.edited is None or tool_input is None:
            return None
        text = str(self.edited.value or "")
        return None if text == self.asked_command else {**tool_input, "command": text}

    def show_change(self, edit: dict[str, Any] | None) -> None:
        changed = edit is not None
        if edit is not None:
            self.preview_text.set_text(str(edit["command"]))
        if changed != self.changed:
            if changed:
                self.asked.classes(add=FADED)
            else:
                self.asked.classes(remove=FADED)
            self.wants.set_text(_("Asked to run") if changed else _("Wants to run"))
            self.preview.set_visibility(changed)
            self.undo.set_visibility(changed)

    def _undo(self) -> None:
        if self.edited is not None and not self.locked:
            self.edited.set_value(self.asked_command)
