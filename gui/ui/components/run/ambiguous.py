"""A short run id that more than one run starts with: the page says so and links each of them."""

from __future__ import annotations

from nicegui import ui

from gui.core.run_ids import AmbiguousRunIdError


def ambiguous_notice(exc: AmbiguousRunIdError, base: str = "/run") -> None:
    """Several runs start with the short id in the address: say so, and link each of them."""
    with ui.column().classes("gap-1").mark("ambiguous-run"):
        ui.label(f"More than one run starts with “{exc.prefix}”. Which one did you mean?").classes(
            "text-gray-800 dark:text-gray-200")
        for candidate in exc.candidates:
            ui.link(f"run {candidate}", f"{base}/{candidate}").classes("font-mono text-sm")
        ui.link("See all runs", "/runs").classes("text-sm")
