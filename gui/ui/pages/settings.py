"""Settings (`/settings`): approval modes per tool, the data folder, and the MCP servers.

The MCP wiring is looked up on the runtime (`mcp_settings`: the server list, `mcp`: the
`McpManager`) so this page works before, and after, the app starts connecting servers: without a
manager the list is still kept (in the data folder, or in memory) and applies at the next start.
"""

from __future__ import annotations

from nicegui import ui

from gui import runtime
from gui.mcp.config import JsonMcpSettings, McpServerConfig, McpSettingsStore, MemoryMcpSettings
from gui.ui.components.settings_approvals import ApprovalModesTable, ApprovalRow
from gui.ui.components.settings_mcp_form import McpServerForm
from gui.ui.components.settings_mcp_list import McpServerList
from gui.ui.theme import frame

IN_MEMORY = "In memory: nothing is kept after the app closes."
_fallback_settings: dict[int, McpSettingsStore] = {}


def mcp_settings(rt: runtime.Runtime) -> McpSettingsStore:
    store = getattr(rt, "mcp_settings", None)
    if store is not None:
        return store
    if id(rt) not in _fallback_settings:
        _fallback_settings.clear()  # one runtime per process; a new one (tests) starts afresh
        _fallback_settings[id(rt)] = (JsonMcpSettings.in_folder(rt.data_dir) if rt.data_dir is not None
                                      else MemoryMcpSettings())
    return _fallback_settings[id(rt)]


async def approval_rows(rt: runtime.Runtime) -> list[ApprovalRow]:
    engine = rt.engine
    modes: dict[str, str] = dict(await engine.approval_rules())
    rows = {t.name: ApprovalRow(t.name, t.description, modes.get(t.name, "ask"))
            for t in engine.tools() if t.approval != "none"}
    for name, mode in modes.items():
        tool = engine.tool(name)
        if name not in rows and tool is None:
            rows[name] = ApprovalRow(name, "", mode, available=False)
        elif name not in rows and mode == "always-allow":
            rows[name] = ApprovalRow(name, tool.description if tool else "", mode)
    return sorted(rows.values(), key=lambda r: (r.mode != "always-allow", r.tool))


async def settings_page() -> None:
    rt = runtime.current()
    engine = rt.engine

    with frame("Settings"):
        ui.label("Settings").classes("text-2xl font-semibold")

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label("Approvals").classes("text-lg font-semibold")
            ui.label("Tools that change, read or send things ask you before they run: commands, writing "
                     "and reading files, fetching web addresses, and tools from servers. Showing text, "
                     "waiting and asking you questions never ask. A tool you chose to always allow (from "
                     "the inbox) is listed first; you can make it ask again here.").classes(
                "text-sm text-gray-600 dark:text-gray-400").mark("approvals-explained")

            @ui.refreshable
            async def approvals() -> None:
                ApprovalModesTable(await approval_rows(rt), on_revoke=revoke)

            async def revoke(tool: str) -> None:
                await engine.revoke_approval_rule(tool)
                ui.notify(f"{tool} asks every time again")
                approvals.refresh()

            await approvals()

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label("Data folder").classes("text-lg font-semibold")
            where = str(rt.data_dir) if rt.data_dir is not None else IN_MEMORY
            ui.label(where).classes("font-mono break-all").mark("data-folder")
            if rt.data_dir is not None:
                ui.label("Sequences, runs and requests are kept here. Set SEQDESK_DATA to use another "
                         "folder.").classes("text-sm text-gray-600 dark:text-gray-400")

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label("MCP servers").classes("text-lg font-semibold")
            ui.label("Tool servers whose tools you can use in sequences, named server.tool. A server describes "
                     "its own tools: only believe one you trust when it says a tool only reads.").classes(
                "text-sm text-gray-600 dark:text-gray-400")
            store = mcp_settings(rt)
            manager = getattr(rt, "mcp", None)

            @ui.refreshable
            async def servers() -> None:
                states = {s.name: s for s in manager.states()} if manager is not None else {}
                McpServerList(await store.list(), states, on_remove=remove, on_trust=trust)

            async def add(config: McpServerConfig) -> str | None:
                if any(s.name == config.name for s in await store.list()):
                    return f"A server named “{config.name}” is already there: remove it first, or pick another name."
                await store.save(config)
                if manager is not None:
                    await manager.add(config)
                engine.settings_changed("mcp_servers", added=config.name)
                ui.notify(f"Added {config.name}: its tools appear in the tool list once it is connected")
                adding.close()
                servers.refresh()
                return None

            async def trust(name: str, trusted: bool) -> None:
                config = next((c for c in await store.list() if c.name == name), None)
                if config is None or config.trusted == trusted:
                    return
                config = config.model_copy(update={"trusted": trusted})
                await store.save(config)
                if manager is not None:
                    await manager.add(config)  # reconnects: its tools are listed again under the new trust
                engine.settings_changed("mcp_servers", trusted=name, value=trusted)
                ui.notify(f"{name}: tools it marks as only reading now run without asking" if trusted
                          else f"{name}: every one of its tools asks before it runs")
                servers.refresh()

            async def remove(name: str) -> None:
                await store.delete(name)
                if manager is not None:
                    await manager.remove(name)
                engine.settings_changed("mcp_servers", removed=name)
                ui.notify(f"Removed {name}")
                servers.refresh()

            await servers()
            if manager is not None:
                seen = {"states": manager.states()}

                def on_tick() -> None:  # redraw only when a connection changed (never under an open dialog)
                    states = manager.states()
                    if states != seen["states"]:
                        seen["states"] = states
                        servers.refresh()

                ui.timer(1.0, on_tick)
            with ui.expansion("Add a server", icon="add").classes("w-full").mark("mcp-add-section") as adding:
                McpServerForm(on_add=add)


def register() -> None:
    @ui.page("/settings")
    async def settings_route() -> None:
        await settings_page()
