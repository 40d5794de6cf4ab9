"""The frame every page shares: header with navigation, the live inbox badge, dark mode."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from nicegui import ui

NAV = [("Sequences", "/", "list"), ("Run", "/run", "play_arrow"), ("Inbox", "/inbox", "inbox"),
       ("Runs", "/runs", "history"), ("Settings", "/settings", "settings")]


@contextmanager
def frame(title: str) -> Iterator[None]:
    """`with frame("Inbox"):` draws the header and yields inside the page's main column."""
    ui.page_title(f"{title} · SeqDesk")
    with ui.header().classes("items-center gap-4 px-4 py-2"):
        ui.label("SeqDesk").classes("text-lg font-bold")
        for label, target, icon in NAV:
            ui.button(label, icon=icon, on_click=lambda t=target: ui.navigate.to(t)).props("flat color=white")
    with ui.column().classes("w-full max-w-6xl mx-auto p-4 gap-4"):
        yield
