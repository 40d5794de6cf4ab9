"""What every request card has in common: its answer controls can be locked, and it answers once.

A card never talks to the engine: it builds a response and hands it to `submit` (a callback from
the page). While that runs the controls are locked, so a double click cannot answer twice; if the
answer is refused because it does not fit, the page calls `unlock` so the person can fix it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from nicegui import ui
from nicegui.elements.mixins.disableable_element import DisableableElement

from gui.core.interactions import ApprovalResponse, InteractionResponse

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

    The keyboard shortcuts call `approve`, `deny` and `focus_note` too; nothing outside the
    "Always allow" button calls `always`, so no key can choose it.
    """

    note: ui.input

    async def approve(self) -> None:
        await self.send(ApprovalResponse(decision="approved"))

    async def always(self) -> None:
        await self.send(ApprovalResponse(decision="approved", always_allow=True))

    async def deny(self) -> None:
        reason = (self.note.value or "").strip() or None
        await self.send(ApprovalResponse(decision="denied", reason=reason))

    def focus_note(self) -> None:
        if not self.locked:
            self.note.run_method("focus")


def section_label(text: str) -> ui.label:
    return ui.label(text).classes("text-xs uppercase tracking-wide opacity-70")


def mono_block(text: str, *, marker: str = "") -> ui.element:
    """A wrapped monospace block with a Copy button: commands must be readable in full."""
    with ui.row().classes("w-full no-wrap items-start gap-1 rounded inbox-mono") as box:
        ui.label(text).classes("font-mono text-sm whitespace-pre-wrap break-all grow p-3").mark(marker)
        ui.button(icon="content_copy", on_click=lambda: ui.clipboard.write(text)).props(
            "flat dense round size=sm aria-label=Copy").tooltip("Copy")
    return box
