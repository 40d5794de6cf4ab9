"""The format's help text, one click away, with the complete example ready to start from."""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from gui.core.help import EXAMPLE, help_text


class HelpPanel(ui.dialog):
    def __init__(self, on_insert_example: Callable[[], None]) -> None:
        super().__init__()
        self.props("position=right full-height")

        def start_from_example() -> None:
            self.close()
            on_insert_example()

        with self, ui.card().classes("w-[46rem] max-w-full h-full gap-2").mark("help-panel"):
            with ui.row().classes("w-full items-center"):
                ui.label("How sequences work").classes("text-lg font-medium")
                ui.space()
                ui.button(icon="close", on_click=self.close).props("flat round dense").tooltip("Close")
            with ui.row().classes("gap-2"):
                ui.button("Start from the example", icon="auto_fix_high",
                          on_click=start_from_example) \
                    .props("no-caps").mark("insert-example")
                ui.button("Copy the example", icon="content_copy",
                          on_click=lambda: ui.clipboard.write(EXAMPLE)).props("flat no-caps")
            ui.label(help_text()).classes("whitespace-pre-wrap font-mono text-xs overflow-y-auto grow") \
                .mark("help-text")
