"""Fake tools for the runner's tests: driven by events, never by sleeps."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import BaseModel

from gui.core.errors import ToolError
from gui.core.tools.registry import ModelTool, ToolContext


class GateArgs(BaseModel):
    key: str = ""
    value: Any = None


class Gate(ModelTool):
    """Waits until the test opens its gate; records who started and in what order."""

    name = "gate"
    description = "waits for the test"
    Args: ClassVar = GateArgs

    def __init__(self, name: str = "gate", concurrency_safe: bool = True, approval: str = "none") -> None:
        self.name = name
        self.concurrency_safe = concurrency_safe
        self.approval = approval  # type: ignore[assignment]
        self.started: list[str] = []
        self.running = 0
        self.max_running = 0
        self.gates: dict[str, asyncio.Event] = {}
        self.started_event = asyncio.Event()
        self.cancelled: list[str] = []

    def gate(self, key: str) -> asyncio.Event:
        return self.gates.setdefault(key, asyncio.Event())

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        key = args["key"]
        self.started.append(key)
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        self.started_event.set()
        try:
            await self.gate(key).wait()
        except asyncio.CancelledError:
            self.cancelled.append(key)
            raise
        finally:
            self.running -= 1
        return args["value"] if args["value"] is not None else key


class FlakyArgs(BaseModel):
    fail_times: int = 0
    value: Any = "ok"


class Flaky(ModelTool):
    """Fails the first `fail_times` calls."""

    name = "flaky"
    description = "fails a few times"
    Args: ClassVar = FlakyArgs

    def __init__(self) -> None:
        self.calls = 0

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.calls += 1
        if self.calls <= args["fail_times"]:
            raise ToolError(f"failure {self.calls}")
        return args["value"]


class Stubborn(ModelTool):
    """Ignores being cancelled: it swallows the cancellation and returns as if nothing happened."""

    name = "stubborn"
    description = "ignores cancellation"
    Args: ClassVar = GateArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.ignored = 0

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.ignored += 1
        return "done anyway"


class NoArgs(BaseModel):
    pass


class BrokenText(ModelTool):
    """Gives back text with a lone surrogate, as a command's or a server's output can."""

    name = "broken_text"
    description = "returns text that is not valid Unicode"
    Args: ClassVar = NoArgs

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return "a\ud800b"


class UntypedArgs(BaseModel):
    value: Any = None


class Untyped(ModelTool):
    """Gives back its value, saying nothing of its type before it runs (like a fetch or a server's tool)."""

    name = "untyped"
    description = "returns its value; its type is known only once it ran"
    Args: ClassVar = UntypedArgs

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return args["value"]
