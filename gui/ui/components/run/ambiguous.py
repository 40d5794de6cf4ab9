"""A short run id that more than one run starts with: the page says so and links each of them."""

from __future__ import annotations

from nicegui import ui

from gui.core.runs import AmbiguousRunIdError
from gui.i18n import _


def ambiguous_notice(exc: AmbiguousRunIdError, base: str = "/run") -> None:
    """Several runs start with the short id in the address: say so, and link each of them."""
    with ui.column().classes("gap-1").mark("ambiguous-run"):
        ui.label(_("More than one run starts with “{prefix}”. Which one did you mean?").format(
            prefix=exc.prefix)).classes(
            "text-gray-800 dark:text-gray-200")
        for candidate in exc.candidates:
            ui.link(_("run {id}").format(id=candidate), f"{base}/{candidate}").classes("font-mono text-sm")
        ui.link(_("See all runs"), "/runs").classes("text-sm")
