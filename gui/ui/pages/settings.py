"""Settings (`/settings`): the language, approvals, reaching the person away from the desktop, the data
folder, the MCP servers, the hosts a team's steps run on and the record of decisions, one card each
(`gui.ui.components.settings`).

Every card asks the door (`Operations`) for what it shows and changes; none reaches the stores, the
runner or the MCP connections. On a paired phone the cards that would change who is reached or
which servers run only show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import ui

from gui.i18n import _
from gui.ui.components.settings.approvals import approvals_card
from gui.ui.components.settings.data_folder import data_folder_card
from gui.ui.components.settings.decisions import decisions_card
from gui.ui.components.settings.hosts import hosts_card
from gui.ui.components.settings.language import language_card
from gui.ui.components.settings.mcp_card import McpServersCard
from gui.ui.components.settings.reach import on_phone, settings_hooks
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext


async def settings_page(ctx: AppContext) -> None:
    rt = ctx.runtime
    assert rt is not None  # pages are served once the engine is open (`ReadyGate`)
    with frame("Settings", ctx):
        ui.label(_("Settings")).classes("text-2xl font-semibold")
        language_card(ctx)
        await approvals_card(rt.engine)
        settings_hooks(ctx)
        data_folder_card(rt.data_dir, team=rt.database is not None)
        await McpServersCard(rt.engine, read_only=on_phone()).redraw()
        await hosts_card(rt.engine)
        await decisions_card(rt.engine)

