"""The NiceGUI pages. `register_pages` is called once per app by `gui.app.create_app`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gui.context import AppContext


def register_pages(ctx: AppContext) -> None:
    """Serve the icon the pages share and every page of the list (`gui.ui.pages.routes`): the pages
    get what the composition root built (the engine, the MCP servers, the notices) from `ctx`,
    nothing global."""
    from gui.ui.pages.routes import add_pages, pages
    from gui.ui.theme import register_shell

    register_shell()
    add_pages(ctx, pages(team=ctx.team))
