"""A command that wants to run: shown in full, with where and why, and three plain choices.

"Run once", "Always allow <tool>" and "Don't run" (with an optional note the tool receives, so it
can tell the sequence what to do instead). "Always allow" is a separate, explicit button naming its
scope; it is never the default and has no shortcut.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.interactions import ApprovalResponse, ShellApprovalRequest
from gui.core.substitution import as_text, shell_words
from gui.i18n import DATA, N_, _
from gui.ui.components.inbox.body import ApprovalBody, Submit, bound_inputs_view, mono_block, section_label

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

    async def run_edited(self) -> None:
        """Approve with the command as the person changed it (checked against the tool first)."""
        request = self.request
        if self.edited is None or not isinstance(request, ShellApprovalRequest) or request.tool_input is None:
            return
        edited = {**request.tool_input, "command": str(self.edited.value or "")}
        await self.send(ApprovalResponse(decision="approved", edited_input=edited))

    def __init__(self, request: ShellApprovalRequest, *, submit: Submit, tool_name: str | None) -> None:
        super().__init__(submit)
        self.request, self.tool_name = request, tool_name
        self.mark("shell-approval")
        with self:
            if request.description:
                ui.label(_(request.description)).classes("text-sm")
            section_label(_("Wants to run"))
            mono_block(request.command, marker="command", inputs=_inserted(request))
            bound_inputs_view(request.bound_inputs, request.run_as_code)
            with ui.grid(columns="auto 1fr").classes("gap-x-4 gap-y-1 text-sm items-baseline"):
                ui.label(_("In folder")).classes("opacity-70")
                ui.label(request.cwd).classes(f"font-mono break-all {DATA}").mark("cwd")
                ui.label(_("Why")).classes("opacity-70")
                ui.label(_(request.reason) if request.reason else _("No reason given"))
                ui.label(_("What it does")).classes("opacity-70")
                ui.label(_(OPERATION_WORDS.get(request.operation, request.operation)))
            if request.tool_input is not None and "command" in request.tool_input:
                with ui.expansion(_("Edit the command before it runs"), icon="edit").classes("w-full text-sm") \
                        .props("dense").mark("edit-command"):
                    self.edited = self.control(
                        ui.textarea(value=request.command).props("outlined autogrow").classes("w-full font-mono")
                        .mark("edited-command"))
                    self.control(ui.button(_("Run the edited command"), icon="play_arrow", on_click=self.run_edited)
                                 .props("no-caps outline color=positive").mark("approve-edited"))
            self.answers(approve=(_("Run once"), "play_arrow"), deny=_("Don't run"),
                         allow_more=_("for this run, this sequence, some commands, or always"))
