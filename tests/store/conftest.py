"""What the store tests share: child processes (started with the repository importable, read line by
line), and the store contract's `backend` fixture (memory and TinyDB, from contract_support.py).

The children that are killed many times over (crash_child.py, modes_child.py, resume_child.py,
postgres_writer_child.py: `FORKED`) are forked from a server that has imported the app already
(tests/support/forked.py), not started as fresh interpreters: 1 to 4 s of imports each on a busy
2-core machine, most of test_crash's, test_kill_runs' and test_postgres_kill's time.

What they prove is the same: the child is a real OS process with its own pid and open files, SIGKILLed
at a random moment inside a real write (to files on disk, or to PostgreSQL), and what survives is read
back by this process afterwards. Its modules are the same code a fresh interpreter would import, and a
kill never lands in their import (a child writes nothing before its first line). Nothing in those
children needs a fresh interpreter: the server starts no thread before it forks (the stores' writer
threads start in the child, and so do PostgreSQL connections: the server imports psycopg and connects
nowhere); each child starts its own event loop; the parent-death signal of resume_child's commands is
about the child itself (their parent); the /proc sessions are the commands' own; and `unarmed` changes
a module's state in that child only. test_lock's `-c` children start a few times each, as
`python <args>`.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from contract_support import backend  # noqa: F401  (the store contract's fixture)
from support.forked import Forked

REPO = Path(__file__).resolve().parents[2]
LINE_TIMEOUT = 10
FORKED = {"crash_child.py", "modes_child.py", "resume_child.py", "postgres_writer_child.py"}
PRELOAD = ("tinydb", "gui.core.asks", "gui.core.asks.service", "gui.core.door.engine", "gui.core.events",
           "gui.pgstore", "gui.runtime", "gui.store.hotcold", "gui.store.open", "gui.store.storage",
           "gui.tools.processes")


class Child:
    """A Python child whose stdout lines are read on a thread, so the test can wait with a timeout;
    forked from the preloaded server for the scripts in `FORKED`, else `python <args>`."""

    def __init__(self, args: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        self.proc: subprocess.Popen[str] | Forked
        if Path(args[0]).name in FORKED:
            self.proc = Forked(args, cwd=REPO, env=env, preload=PRELOAD)
        else:
            self.proc = subprocess.Popen(
                [sys.executable, *args],
                cwd=REPO,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def next_line(self, timeout: float = LINE_TIMEOUT) -> str:
        """The next stdout line; fails with the child's stderr if it exits first."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"child {self.pid} printed nothing for {timeout}s") from None
        if line is None:
            self.proc.wait(timeout)
            stderr = self.proc.stderr.read() if self.proc.stderr else ""
            raise AssertionError(f"child {self.pid} exited ({self.proc.returncode}) early:\n{stderr}")
        return line

    def kill(self) -> list[str]:
        """SIGKILL the child; returns the lines it printed that were not read yet."""
        self.proc.kill()
        self.proc.wait(LINE_TIMEOUT)
        self._reader.join(LINE_TIMEOUT)
        rest: list[str] = []
        while (line := self._lines.get_nowait()) is not None:
            rest.append(line)
        return rest

    def finish(self, timeout: float = LINE_TIMEOUT) -> tuple[int, list[str], str]:
        """Close stdin, wait for the exit; returns (exit code, unread lines, stderr)."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout)
        self._reader.join(timeout)
        rest: list[str] = []
        while (line := self._lines.get_nowait()) is not None:
            rest.append(line)
        return code, rest, self.proc.stderr.read()


@pytest.fixture
def spawn():
    """Start `python <args>` children; any still running at the end of the test are killed."""
    children: list[Child] = []

    def start(*args: str) -> Child:
        child = Child(list(args))
        children.append(child)
        return child

    yield start
    for child in children:
        if child.proc.poll() is None:
            child.proc.kill()
            child.proc.wait(LINE_TIMEOUT)
        for stream in (child.proc.stdin, child.proc.stdout, child.proc.stderr):
            if stream is not None:
                stream.close()
