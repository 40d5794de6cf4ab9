"""The tasks `seqdesk mcp` gave agents, kept in the data folder so they outlive the process.

A task's state lives in memory while the `seqdesk mcp` that gave it runs (`gui.mcp.agent_runs`). The
run it follows is the app's, and goes on when that process ends; so the task's id is written down
with its run's id (`<data>/mcp-tasks/<task id>.json`, one small file per task, written whole by
`atomic_write`: two `seqdesk mcp` never write the same file). A `seqdesk mcp` started again (or
serving another agent's client) then answers `tasks/get` and `tasks/cancel` for such a task from the
run's record (`gui.mcp.tasks`). A task whose run is gone reads as unknown. Tasks older than
`KEEP_SECONDS` are forgotten when another is written. With no data folder (an in-memory engine) the
book keeps nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from gui.atomic import atomic_write

log = logging.getLogger(__name__)

FOLDER = "mcp-tasks"
KEEP_SECONDS = 30 * 24 * 3600.0


@dataclass(frozen=True)
class BookedTask:
    """A task given by some `seqdesk mcp`: the run it follows."""

    task_id: str
    run_id: str
    tool: str
    created_at: float


class TaskBook:
    """The tasks written down in a data folder (`folder` None: none kept)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder / FOLDER if folder is not None else None

    def _path(self, task_id: str) -> Path | None:
        if self.folder is None:
            return None
        try:
            canonical = str(uuid.UUID(task_id))
        except ValueError:
            return None  # every task id this server gives is a UUID: anything else names no file
        return self.folder / f"{canonical}.json"

    def note(self, task_id: str, run_id: str, tool: str, created_at: float) -> None:
        """Write down that the task follows the run; a failure to write is logged, never raised (the
        task still works while this process lives)."""
        path = self._path(task_id)
        if path is None:
            return
        data = {"task_id": task_id, "run_id": run_id, "tool": tool, "created_at": created_at}
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            atomic_write(path, json.dumps(data).encode())
            self._forget_old(path.parent)
        except OSError as exc:
            log.warning("task %s of run %s could not be written down (it will not outlive this process): %s",
                        task_id, run_id, exc)

    def find(self, task_id: str) -> BookedTask | None:
        path = self._path(task_id)
        if path is None:
            return None
        try:
            data = json.loads(path.read_bytes())
            return BookedTask(task_id=str(data["task_id"]), run_id=str(data["run_id"]), tool=str(data["tool"]),
                              created_at=float(data["created_at"]))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the written-down task %s cannot be read: %s", task_id, exc)
            return None

    @staticmethod
    def _forget_old(folder: Path) -> None:
        too_old = time.time() - KEEP_SECONDS
        for path in folder.glob("*.json"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < too_old:
                    path.unlink()
