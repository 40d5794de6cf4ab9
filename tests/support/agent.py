"""An agent's side of `seqdesk mcp` in tests: the server over stdio on a data folder (the app starts in
the background for it), a sequence of one command, and the progress line that says a person is awaited."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


def seqdesk_mcp(data: Path, cwd: Path) -> StdioServerParameters:
    """`seqdesk mcp` as an agent spawns it, on the data folder `data`."""
    return StdioServerParameters(command=sys.executable, args=["-m", "gui", "mcp"], cwd=str(cwd),
                                 env={"SEQDESK_DATA": str(data), "PYTHONPATH": str(ROOT)})


def greet(command: str) -> dict[str, Any]:
    """The sequence "greet": one `cmd_run` of `command` (it asks first), its output in "said"."""
    step = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    return {"name": "greet", "groups": [{"name": "greet-g", "in": {}, "out": {"said": "string"},
                                         "tools": json.dumps(step) + " ;"}]}


def person_awaited() -> tuple[asyncio.Event, Progress]:
    """An event set once a progress message says the run waits for a person, and the progress callback
    that sets it."""
    waiting = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if message and "waits for a person" in message:
            waiting.set()

    return waiting, on_progress
