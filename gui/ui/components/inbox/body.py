"""What every request card has in common: its answer controls can be locked, and it answers once.

A card never talks to the engine: it builds a response and hands it to `submit` (a callback from
the page). While that runs the controls are locked, so a double click cannot answer twice; if the
answer is refused because it does not fit, the page calls `unlock` so the person can fix it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from nicegui import ui
from nicegui.elements.mixins.disableable_element import DisableableElement

from gui.core.interactions import ApprovalResponse, InteractionRequest, InteractionResponse
from gui.core.rules import Scope
from gui.core.substitution import as_text
from gui.i18n import DATA, _
from gui.ui.components.inbox.keys import key_hint

Submit = Callable[[InteractionResponse], Awaitable[None]]
E = TypeVar("E", bound=DisableableElement)


class RequestBody(ui.column):
    def __init__(self, submit: Submit) -> None:
        super().__init__()
        self.classes("w-full gap-3")
        self._submit = submit
        self._controls: list[DisableableElement] = []
        self.locked = False

    def control(self, element: E) -> E:
        """Register an input or button that must stop working once the request has ended."""
        self._controls.append(element)
        return element

    def lock(self) -> None:
        self.locked = True
        for element in self._controls:
            element.disable()

    def unlock(self) -> None:
        self.locked = False
        for element in self._controls:
            element.enable()

    async def send(self, response: InteractionResponse) -> None:
        if self.locked:
            return
        self.lock()
        await self._submit(response)


class ApprovalBody(RequestBody):
    """A request that is allowed or refused (a command, a tool): the three answers and the note.

    The keyboard shortcuts call `approve`, `deny` and `focus_note` too; nothing but the
    "Allow more…" button opens the scope dialog (`always`), and only its Allow button sends a wider
    approval, so no key and no single click can choose one.
    """

    note: ui.input
    request: InteractionRequest | None = None
    tool_name: str | None = None

    async def approve(self) -> None:
        await self.send(ApprovalResponse(decision="approved"))

    async def always(self) -> None:
        """Open the choice of how far the approval reaches; it is sent once confirmed there."""
        from gui.ui.components.inbox.scope_dialog import ScopeDialog

        if self.locked or self.request is None or self.tool_name is None:
            return
        ScopeDialog(self.request, self.tool_name, self.widen).open()

    async def widen(self, scope: Scope, prefix: str | None) -> None:
        await self.send(ApprovalResponse(decision="approved", scope=scope, prefix=prefix))

    def answers(self, *, approve: tuple[str, str], deny: str, allow_more: str | None) -> None:
        """The note and the answer buttons every approval card has: approve (word, icon), "Allow
        more…" (with what it can reach, for a tool with a name) and deny, then the keys' hint."""
        self.note = self.control(
            ui.input(placeholder=_("Tell it what to do instead (optional, sent if you choose {deny})").format(
                deny=deny))
            .props("dense outlined clearable").classes("w-full").mark("deny-reason"))
        with ui.row().classes("gap-2 items-center"):
            self.control(ui.button(approve[0], icon=approve[1], on_click=self.approve)
                         .props("no-caps unelevated color=positive").mark("approve"))
            if self.tool_name and allow_more:
                self.control(ui.button(_("Allow more…"), icon="verified_user", on_click=self.always)
                             .props("no-caps outline color=positive")
                             .tooltip(_("Let {tool} run without asking: {reach}. You choose, then confirm.").format(
                                 tool=self.tool_name, reach=allow_more)).mark("always-allow"))
            self.control(ui.button(deny, icon="block", on_click=self.deny)
                         .props("no-caps outline color=negative").mark("deny"))
        key_hint(approve[0], deny)

    async def deny(self) -> None:
        reason = (self.note.value or "").strip() or None
        await self.send(ApprovalResponse(decision="denied", reason=reason))

    def focus_note(self) -> None:
        if not self.locked:
            self.note.run_method("focus")


def section_label(text: str) -> ui.label:
    return ui.label(text).classes("text-xs uppercase tracking-wide opacity-70")


def mono_block(text: str, *, marker: str = "", inputs: Mapping[str, str | tuple[str, ...]] | None = None) -> ui.element:
    """A wrapped monospace block with a Copy button: commands must be readable in full. `inputs`
    maps an input's name to the text (or the texts) it put into `text`: those parts are highlighted,
    with the name."""
    with ui.row().classes("w-full no-wrap items-start gap-1 rounded inbox-mono") as box:
        parts = highlight_parts(text, inputs or {})
        if len(parts) == 1 and parts[0][1] is None:
            ui.label(text).classes(f"font-mono text-sm whitespace-pre-wrap break-all grow p-3 {DATA}").mark(marker)
        else:
            with ui.element("div").classes(
                    f"font-mono text-sm whitespace-pre-wrap break-all grow p-3 {DATA}").mark(marker):
                for piece, name in parts:
                    label = ui.label(piece).classes("inline")
                    if name is not None:
                        label.classes("bg-amber-100 dark:bg-amber-900 rounded px-0.5").tooltip(
                            _("from the input {name}").format(name=name)).mark(f"bound-{name}")
        ui.button(icon="content_copy", on_click=lambda: ui.clipboard.write(text)).props(
            "flat dense round size=sm").tooltip(_("Copy")).props('aria-label="' + _("Copy") + '"')
    return box


def highlight_parts(text: str, inputs: Mapping[str, str | tuple[str, ...]]) -> list[tuple[str, str | None]]:
    """`text` cut into pieces, each with the name of the input it came from (None: written as is).
    The longest inserted texts are found first, left to right; an empty one is never a part."""
    marks: list[tuple[int, int, str]] = []
    forms = [(name, form) for name, given in inputs.items() for form in ((given,) if isinstance(given, str) else given)]
    for name, inserted in sorted(forms, key=lambda kv: -len(kv[1])):
        if not inserted:
            continue
        start = text.find(inserted)
        while start >= 0:
            end = start + len(inserted)
            if not any(s < end and start < e for s, e, _name in marks):
                marks.append((start, end, name))
            start = text.find(inserted, end)
    parts: list[tuple[str, str | None]] = []
    at = 0
    for start, end, name in sorted(marks):
        if start > at:
            parts.append((text[at:start], None))
        parts.append((text[start:end], name))
        at = end
    if at < len(text) or not parts:
        parts.append((text[at:], None))
    return parts


def bound_inputs_view(bound: Mapping[str, Any], run_as_code: Mapping[str, str] | None = None) -> None:
    """Which parts of the request came from the run's inputs (an agent or another step chose them).
    `run_as_code`: the inputs a program will run as a command, each with that program ("": the input
    is the command, or names its program); each says so beside its value."""
    if not bound:
        return
    as_code = run_as_code or {}
    with ui.column().classes("w-full gap-1").mark("bound-inputs"):
        section_label(_("Parts that came from inputs") if as_code else
                      _("Parts that came from inputs (inserted as text, never as commands)"))
        with ui.grid(columns="auto 1fr").classes("gap-x-4 gap-y-1 text-sm items-baseline"):
            for name, value in bound.items():
                ui.label(name).classes(f"font-mono opacity-70 {DATA}")
                with ui.column().classes("gap-0 min-w-0"):
                    ui.label(as_text(value)).classes(f"font-mono whitespace-pre-wrap break-all {DATA}").mark(
                        f"bound-value-{name}")
                    if name in as_code:
                        _runs_as_code(name, as_code[name])


def _runs_as_code(name: str, program: str) -> None:
    with ui.row().classes("items-center gap-1 no-wrap font-medium text-orange-800 dark:text-orange-300") \
            .mark(f"runs-as-code-{name}"):
        ui.icon("warning", size="xs")
        if program:
            ui.label(_("This input will be run as a command (by {program})").format(program=program))
        else:
            ui.label(_("This input will be run as a command"))
