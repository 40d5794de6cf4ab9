"""The tool palette: every tool known now (built-in and from MCP servers, as the door's `list_tools`
gives them), searchable, each with its description, so a person picks a tool by what it does rather
than by its name.

Each entry says where the tool comes from (built in, or which server) and whether it asks before
it runs. A schema title that only repeats the tool's name (MCP servers written in Python send
`get_current_timeArguments`) is left out: it says nothing a person can use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from nicegui import ui

from gui.core.tools import ToolInfo
from gui.i18n import DATA, _
from gui.ui.editor.tool_row import tool_description
from gui.wording.glossary import said

_GENERATED_TITLE = re.compile(r"(Arguments|Args|Input|Params)$")


def friendly_title(tool: ToolInfo) -> str:
    """The schema's title when it is words for people; "" when it is generated from the tool's name."""
    title = str(tool.input_schema.get("title") or "").strip()
    remote = (tool.name.removeprefix(f"{tool.server}.") if tool.server else tool.name).replace("_", "").lower()
    if "_" in title or _GENERATED_TITLE.search(title) or (remote and remote in title.replace("_", "").lower()):
        return ""
    return title


def source_words(tool: ToolInfo) -> str:
    server = tool.server
    if tool.kind == "prompt":
        return _("a text template from the server {server}: its text feeds a later step").format(server=server)
    return _("from the server {server}").format(server=server) if server else _("built in")


class ToolPalette(ui.dialog):
    def __init__(self, tools: Mapping[str, ToolInfo]) -> None:
        super().__init__()
        self.tools = tools  # the editor's, kept current as tools come and go
        self.on_pick: Callable[[str], None] | None = None
        with self, ui.card().classes("w-[40rem] max-w-[100vw] gap-2 sd-editor sd-page"):
            with ui.row().classes("w-full items-center no-wrap"):
                ui.label(_("Add a tool")).classes("text-lg font-medium")
                ui.space()
                close = ui.button(icon="close", on_click=self.close).props("flat round dense").tooltip(_("Close"))
                close.props["aria-label"] = _("Close")
            self.search = ui.input(_("Search tools"), on_change=lambda: self._draw()) \
                .props("clearable autofocus").classes("w-full").mark("palette-search")
            self.list = ui.column().classes("w-full gap-1 max-h-[60vh] overflow-y-auto overflow-x-hidden no-wrap")

    def pick(self, on_pick: Callable[[str], None]) -> None:
        self.on_pick = on_pick
        self.search.value = ""
        self._draw()
        self.open()

    def _tools(self) -> list[ToolInfo]:
        return sorted(self.tools.values(), key=lambda t: t.name)

    def _draw(self) -> None:
        needle = (self.search.value or "").strip().lower()
        self.list.clear()
        shown = 0
        with self.list:
            for tool in self._tools():
                title = friendly_title(tool)
                described = tool_description(tool)
                haystack = f"{tool.name} {title} {tool.description} {described} {source_words(tool)}".lower()
                if needle and needle not in haystack:
                    continue
                shown += 1
                with ui.item(on_click=lambda n=tool.name: self._chosen(n)).classes("w-full rounded shrink-0") \
                        .props("clickable").mark(f"palette-{tool.name}"):
                    with ui.item_section().classes("min-w-0 no-wrap"):
                        with ui.row().classes("w-full items-baseline gap-x-2 gap-y-0"):
                            ui.label(tool.name).classes(f"font-mono font-bold break-all {DATA}")
                            if title:
                                remote = bool(tool.server)  # an MCP server's words: data
                                ui.label(title if remote else said(title)).classes("text-sm opacity-80") \
                                    .classes(DATA if remote else "")
                            ui.label(source_words(tool)).classes("text-xs opacity-60")
                            if tool.approval != "none":
                                with ui.row().classes("items-center gap-1 no-wrap text-xs "
                                                      "text-violet-700 dark:text-violet-300"):
                                    ui.icon("front_hand", size="xs")
                                    ui.label(_("asks you before it runs"))
                        ui.label(described).classes("text-sm opacity-70 whitespace-normal break-words") \
                            .classes(DATA if tool.server else "")
            if not shown:
                ui.label(_("No tool matches. Tools from MCP servers appear here once their server is added "
                           "in Settings.")).classes("text-sm opacity-70")

    def _chosen(self, name: str) -> None:
        self.close()
        if self.on_pick is not None:
            self.on_pick(name)
