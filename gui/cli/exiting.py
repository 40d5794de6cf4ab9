"""How the `seqdesk` process ends once its command has returned its exit code: without the
interpreter's final teardown, which frees every object of every module one by one. After `seqdesk run`
had printed its last line that took ~0.1 s (80-170 ms on the 2-core machine), a tenth of what a
person waits for at the terminal, for nothing: the process's memory goes back to the system whole.

Everything the teardown would still do for us is done first, in its order: the program's other
threads are waited for, the exit functions run (logs closed, temporary folders removed), the output
flushed; only the freeing of objects is skipped. It also keeps a process that used Temporal's client
or worker (`temporalio`, whose Rust core keeps threads of its own) from aborting: those threads can
call into Python while it is being torn down, and the process then ends with "Fatal Python error:
PyGILState_Release" (SIGABRT, exit -6) after its work was done and said (temporalio/sdk-python issue
#300; seen in about one `seqdesk check --executor …` of five on a busy machine)."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def end_process(code: int) -> NoReturn:
    """End with `code`, as above."""
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
