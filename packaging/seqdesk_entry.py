"""Entry point of the packaged SeqDesk (PyInstaller via nicegui-pack): the same as the `seqdesk` command.

`freeze_support()` first: in a frozen app, a child process started by multiprocessing (the
pywebview window in native mode) re-runs this file, and must become that child rather than a
second SeqDesk. The `__main__` guard keeps `__mp_main__` re-imports from starting the app again.
"""

from __future__ import annotations

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from gui.cli.exiting import run

    run()
