"""Entry file for NiceGUI (its test `user` fixture runs this file as `__main__`).

The `seqdesk` command does not use it: it calls `gui.app.start_app`. Here the engine is in memory
unless SEQDESK_DATA names a folder.
"""

from __future__ import annotations

if __name__ in {"__main__", "__mp_main__"}:
    from nicegui import ui

    from gui.api.request_gate import Served
    from gui.app import create_app
    from gui.serving import HTTP_PARSER
    from gui.settings import load_settings

    settings = load_settings()
    create_app(settings=settings.model_copy(update={"memory": settings.memory or settings.data is None}),
               served=Served.in_process())
    ui.run(reload=False, host="127.0.0.1", show=False, title="SeqDesk", storage_secret="seqdesk-local",
           http=HTTP_PARSER)
