"""The `seqdesk` process ends with its command's exit code without the interpreter's teardown (the
freeing of every object, ~0.1 s after `seqdesk run`; with Temporal's client loaded, an abort:
temporalio/sdk-python issue #300) yet still does what the teardown would: waits for its threads, runs
its exit functions, flushes what it printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAM = """
import atexit, sys, threading
{load}
from gui.cli.exiting import end_process
class Kept:
    def __del__(self) -> None:  # run by the teardown only
        print(" and freed", end="")
kept = Kept()
done = threading.Event()
def late() -> None:
    done.wait(5)
    print("thread's last line", end="")  # no newline: only a flush writes it out
atexit.register(lambda: print("exit function ran", file=sys.stderr, end=""))
threading.Thread(target=late).start()
print("said", end="")
done.set()
end_process(3)
"""


def _ending(load: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROGRAM.format(load=load)], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])


def test_with_temporal_loaded_the_process_ends_with_its_code_after_its_threads_and_exit_functions() -> None:
    ended = _ending("import temporalio.client")
    assert ended.returncode == 3, ended.stderr
    assert ended.stdout == "saidthread's last line"
    assert ended.stderr == "exit function ran"


def test_without_temporal_too_it_ends_after_its_threads_and_exit_functions_without_freeing_its_objects() -> None:
    ended = _ending("")
    assert (ended.returncode, ended.stdout, ended.stderr) == (3, "saidthread's last line", "exit function ran")
