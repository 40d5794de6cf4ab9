"""The NiceGUI pages. `register_pages` is called once per app by `gui.app.create_app`."""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gui.context import AppContext


def register_pages(ctx: AppContext) -> None:
    """Import every module of `gui.ui.pages` and call its `register(ctx)`: the pages get what the
    composition root built (the engine, the MCP servers, the notices) from `ctx`, nothing global."""
    from gui.ui import pages

    for info in sorted(pkgutil.iter_modules(pages.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gui.ui.pages.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(ctx)
