"""The MCP servers the person added, each with where it is and whether it is connected now.

Connection states come from the MCP manager when it runs; without one a server shows as
"Not connected in this session". Removing asks first: its tools disappear from sequences.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.mcp.config import McpServerConfig
from gui.ui.components.run_status import duration_words

STATE_LOOKS = {
    "connected": ("check_circle", "text-green-700 dark:text-green-400"),
    "connecting": ("sync", "text-blue-600 dark:text-blue-400"),
    "down": ("error", "text-red-600 dark:text-red-400"),
    "disabled": ("pause_circle", "text-gray-500 dark:text-gray-400"),
}
UNKNOWN = ("link_off", "text-gray-500 dark:text-gray-400")


def state_words(state: Any | None) -> str:
    if state is None:
        return "Not connected in this session"
    if state.status == "connected":
        n = len(state.tools)
        return f"Connected · {n} tool{'s' if n != 1 else ''}"
    if state.status == "connecting":
        return "Connecting…"
    if state.status == "down":
        retry = f" · trying again in {duration_words(state.retry_in)}" if state.retry_in else ""
        return f"Not reachable: {state.last_error or 'no reason given'}{retry}"
    return "Turned off"


class McpServerList(ui.column):
    def __init__(self, servers: list[McpServerConfig], states: dict[str, Any],
                 on_remove: Callable[[str], Awaitable[None]]) -> None:
        super().__init__()
        self.classes("w-full gap-0")
        self._on_remove = on_remove
        with self:
            if not servers:
                ui.label("No MCP servers yet. Add one below to use its tools in your sequences.").classes(
                    "text-gray-600 dark:text-gray-400")
            for server in servers:
                self._row(server, states.get(server.name))

    def _row(self, server: McpServerConfig, state: Any | None) -> None:
        icon, colour = STATE_LOOKS.get(state.status if state else "", UNKNOWN)
        with ui.row(wrap=False).classes(
                "w-full items-center gap-4 "
                "py-2 border-b border-gray-100 dark:border-gray-800").mark(
                f"mcp-{server.name}"):
            with ui.column().classes("gap-0 grow min-w-0"):
                with ui.row().classes("items-center gap-2"):
                    ui.label(server.name).classes("font-mono font-medium")
                    if server.trusted:
                        ui.chip("trusted", color="orange-2").props("dense")
                ui.label(server.describe()).classes("text-sm font-mono text-gray-600 dark:text-gray-400 break-all")
            with ui.row(wrap=False).classes(f"items-center gap-1 {colour}"):
                ui.icon(icon)
                ui.label(state_words(state)).classes("text-sm")
            ui.button(icon="delete", on_click=lambda n=server.name: self._confirm(n)).props(
                "flat dense round").tooltip("Remove").mark(f"mcp-remove-{server.name}")

    def _confirm(self, name: str) -> None:
        with ui.dialog() as dialog, ui.card().classes("gap-3"):
            ui.label(f"Remove the server “{name}”? Sequences that use its tools will not find them.")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button("Keep it", on_click=dialog.close).props("flat no-caps")

                async def remove() -> None:
                    dialog.close()
                    await self._on_remove(name)

                ui.button("Remove", icon="delete", on_click=remove).props("no-caps color=negative").mark(
                    "mcp-confirm-remove")
        dialog.open()
