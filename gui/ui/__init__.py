"""The NiceGUI pages. `register_pages` is called once per app by `gui.app.create_app`."""

from __future__ import annotations

import importlib
import pkgutil


def register_pages(*, token: str | None = None) -> None:
    """Import every module of `gui.ui.pages` and call its `register()`."""
    from gui.ui import pages

    for info in sorted(pkgutil.iter_modules(pages.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gui.ui.pages.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register()
