"""How the `seqdesk` process ends once its command has returned its exit code.

Normally as any Python program: `SystemExit(code)`. A process that used Temporal's client or worker
(`temporalio`, whose Rust core keeps threads of its own) ends without the interpreter's final teardown:
those threads can call into Python while it is being torn down, and the process then aborts with
"Fatal Python error: PyGILState_Release" (SIGABRT, exit -6) after its work was done and said
(temporalio/sdk-python issue #300; seen here in about one `seqdesk check --executor …` of five on a
busy machine). Everything the teardown would still do for us is done first, in its order: the
program's other threads are waited for, the exit functions run (logs closed, temporary folders
removed), the output flushed; only the freeing of objects is skipped."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def end_process(code: int) -> NoReturn:
    """End with `code`: `SystemExit` as usual, or, once Temporal's client was loaded, as above."""
    if "temporalio" not in sys.modules:
        raise SystemExit(code)
    for thread in threading.enumerate():  # what the interpreter waits for before it exits
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left, or a stream closed by an exit function
            pass
    os._exit(code)


def run() -> NoReturn:
    """The `seqdesk` command (the console script and `python -m gui`)."""
    from gui.cli import main

    end_process(main())
