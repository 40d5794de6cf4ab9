"""Settings → Data folder: where sequences, runs and requests are kept (or that nothing is); on a team
server, the team's database."""

from __future__ import annotations

from pathlib import Path

from nicegui import ui

from gui.i18n import DATA, N_, _

IN_MEMORY = N_("In memory: nothing is kept after the app closes.")


def data_folder_card(folder: Path | None, *, team: bool = False) -> None:
    if team:
        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label(_("Where things are kept")).classes("text-lg font-semibold")
            ui.label(_("In the team's database: every server of the team keeps and reads the same sequences, "
                       "runs, requests and settings there.")).classes("text-sm text-gray-600 dark:text-gray-400"
                                                                        ).mark("data-folder")
        return
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
        ui.label(_("Data folder")).classes("text-lg font-semibold")
        where = str(folder) if folder is not None else _(IN_MEMORY)
        ui.label(where).classes(f"font-mono break-all {DATA}").mark("data-folder")
        if folder is not None:
            ui.label(_("Sequences, runs and requests are kept here. Set SEQDESK_DATA to use another "
                       "folder.")).classes("text-sm text-gray-600 dark:text-gray-400")
