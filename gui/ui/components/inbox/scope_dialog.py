"""How far an approval reaches, chosen on screen with every choice written out, then confirmed.

"Run once" stays the one-click answer. Anything wider (this step for the rest of this run, this step
of this sequence as it is now, this step's commands that start with some words, the tool everywhere whatever it
runs) is picked here from choices that say exactly what they allow (`gui.core.asks.rules.scope_words`),
and only the Allow button of this dialog sends it: no key and no single click can.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.asks import (
    PREFIX_TOOL,
    InteractionRequest,
    RuleError,
    Scope,
    ShellApprovalRequest,
    check_prefix,
    command_starts_with,
    program_of,
    runs_input_as_code,
    scope_words,
)
from gui.i18n import _

Choose = Callable[[Scope, str | None], Awaitable[None]]


def suggested_prefix(command: str) -> str:
    """The first words of a command, as a prefix a person would likely allow (`git status`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ""
    chosen = words[:2] if len(words) > 1 and not words[1].startswith("-") else words[:1]
    text = shlex.join(chosen)
    return text if command_starts_with(command, text) else ""


def scope_choices(request: InteractionRequest, tool_name: str) -> list[Scope]:
    """The scopes `rule_for` can make for `request`: one step (this run, this sequence, a prefix) needs
    the step's fingerprint and no input run as code, and "this sequence" a saved sequence (not a file run)."""
    if program_of(request) is not None:
        return ["program"]  # the same program asking the same again; no wider rule lets a program in
    choices: list[Scope] = []
    if request.step_fingerprint and not runs_input_as_code(request):
        choices.append("run")
        if request.sequence_name and request.sequence_identity:
            choices.append("sequence")
        if tool_name == PREFIX_TOOL and isinstance(request, ShellApprovalRequest) \
                and suggested_prefix(request.command):
            choices.append("prefix")
    choices.append("tool")
    return choices


class ScopeDialog(ui.dialog):
    def __init__(self, request: InteractionRequest, tool_name: str, on_choose: Choose) -> None:
        super().__init__()
        self.mark("scope-dialog")
        self._request, self._on_choose, self._tool = request, on_choose, tool_name
        command = request.command if isinstance(request, ShellApprovalRequest) else ""
        with self, ui.card().classes("gap-3 w-[36rem] max-w-full"):
            ui.label(_("Allow {tool} without asking").format(tool=tool_name)).classes("text-lg font-semibold")
            ui.label(_("Choose how far this goes. Whatever you choose is listed in Settings, where you can "
                       "take it back.")).classes("text-sm opacity-80")
            choices = self._choices = scope_choices(request, tool_name)
            if runs_input_as_code(request):
                ui.label(_("Only the widest choice is offered: an input of this step will be run as a command, so "
                           "a rule for this step would also allow whatever code the next run brings. Run once "
                           "answers just this request.")).classes("text-sm text-orange-800 dark:text-orange-300") \
                    .mark("scope-runs-as-code")
            self.prefix = ui.input(_("Commands that start with"), value=suggested_prefix(command)).props(
                "dense outlined").classes("w-full font-mono").mark("scope-prefix")
            self.radio = ui.radio({c: self._words(c) for c in choices}, value=choices[0],
                                  on_change=self._changed).mark("scope-choice")
            self.prefix.move(target_index=-1)
            self.prefix.on_value_change(self._prefix_changed)
            self.problem = ui.label("").classes("text-sm text-negative").mark("scope-problem")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Cancel"), on_click=self.close).props("flat no-caps").mark("scope-cancel")
                self.confirm = ui.button(_("Allow"), icon="verified_user", on_click=self._confirm).props(
                    "no-caps unelevated color=positive").mark("scope-confirm")
        self._changed()

    def _words(self, scope: Scope) -> str:
        prefix = self.prefix.value if hasattr(self, "prefix") else None
        text = scope_words(scope, self._request, prefix, tr=_)
        # A sentence starts with a capital, but a tool's name (cmd_run) keeps its own spelling.
        return text if text.startswith(self._tool) else text[:1].upper() + text[1:]

    def _changed(self) -> None:
        self.prefix.set_visibility(self.radio.value == "prefix")
        self._prefix_changed()

    def _prefix_changed(self) -> None:
        problem = ""
        if self.radio.value == "prefix":
            try:
                checked = check_prefix(self.prefix.value or "")
                command = self._request.command if isinstance(self._request, ShellApprovalRequest) else ""
                if not command_starts_with(command, checked):
                    problem = _("This command does not start with those words: the rule must cover it.")
            except RuleError as exc:
                problem = str(exc)
            self.radio.set_options({c: self._words(c) for c in self._choices}, value=self.radio.value)
        self.problem.set_text(problem)
        self.confirm.set_enabled(not problem)

    async def _confirm(self) -> None:
        scope: Scope = self.radio.value
        prefix = (self.prefix.value or "").strip() if scope == "prefix" else None
        self.close()
        await self._on_choose(scope, prefix)
