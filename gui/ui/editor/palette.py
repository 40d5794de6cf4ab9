"""The tool palette: every tool in the registry (built-in and from MCP servers), searchable,
each with its description, so a person picks a tool by what it does rather than by its name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.registry import Registry


class ToolPalette(ui.dialog):
    def __init__(self, registry: Registry | None) -> None:
        super().__init__()
        self.registry = registry
        self.on_pick: Callable[[str], None] | None = None
        with self, ui.card().classes("w-[40rem] max-w-full gap-2"):
            with ui.row().classes("w-full items-center"):
                ui.label("Add a tool").classes("text-lg font-medium")
                ui.space()
                ui.button(icon="close", on_click=self.close).props("flat round dense").tooltip("Close")
            self.search = ui.input("Search tools", on_change=lambda: self._draw()) \
                .props("clearable autofocus").classes("w-full").mark("palette-search")
            self.list = ui.column().classes("w-full gap-1 max-h-[60vh] overflow-y-auto")

    def pick(self, on_pick: Callable[[str], None]) -> None:
        self.on_pick = on_pick
        self.search.value = ""
        self._draw()
        self.open()

    def _tools(self) -> list[Any]:
        return list(self.registry) if self.registry is not None else []

    def _draw(self) -> None:
        needle = (self.search.value or "").strip().lower()
        self.list.clear()
        shown = 0
        with self.list:
            for tool in self._tools():
                title = str(tool.input_schema().get("title") or "")
                haystack = f"{tool.name} {title} {tool.description}".lower()
                if needle and needle not in haystack:
                    continue
                shown += 1
                with ui.item(on_click=lambda n=tool.name: self._chosen(n)).classes("w-full rounded") \
                        .props("clickable").mark(f"palette-{tool.name}"):
                    with ui.item_section():
                        with ui.row().classes("items-baseline gap-2"):
                            ui.label(tool.name).classes("font-mono font-bold")
                            if title:
                                ui.label(title).classes("text-sm text-grey-8")
                            if getattr(tool, "approval", "none") != "none":
                                ui.label("asks before it runs").classes("text-xs text-violet-8")
                        ui.label(tool.description).classes("text-sm text-grey-7")
            if not shown:
                ui.label("No tool matches. Tools from MCP servers appear here once their server is added "
                         "in Settings.").classes("text-sm text-grey-7")

    def _chosen(self, name: str) -> None:
        self.close()
        if self.on_pick is not None:
            self.on_pick(name)
