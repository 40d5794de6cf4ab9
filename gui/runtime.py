"""The running app's one engine, and how it is opened and closed.

Every surface in this process (pages, HTTP API, MCP server) reaches the engine through
`current()`. `open_runtime` builds it: with a data folder it uses the TinyDB stores (one process
per folder, start-up recovery); with `memory=True` it uses the in-memory stores (tests, demos).
The store layer only opens the stores (`gui.store.open_stores`); the engine is built on them here
(`open_store_runtime`), and what the store had to repair becomes the runtime's `notices`, which
every page shows.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui.core.engine import Engine
from gui.store.open import open_stores
from gui.tools import default_registry


@dataclass
class Runtime:
    engine: Engine
    data_dir: Path | None = None
    token: str | None = None
    closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    recovered_runs: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # things a person should read (a file moved aside)
    extras: dict[str, object] = field(default_factory=dict)  # optional parts: writer, endpoint file, …
    mcp: Any = None  # the MCP manager (gui.mcp.client.McpManager) once servers are started
    mcp_settings: Any = None  # where MCP server configs are kept (gui.mcp.config)

    async def close(self) -> None:
        await self.engine.close()
        for closer in reversed(self.closers):
            result = closer()
            if result is not None:
                await result
        self.closers.clear()


_current: Runtime | None = None


def current() -> Runtime:
    if _current is None:
        raise RuntimeError("SeqDesk's engine is not open yet")
    return _current


def set_current(runtime: Runtime | None) -> None:
    global _current
    _current = runtime
    for waiter in list(_waiters):
        if not waiter.done():
            waiter.get_loop().call_soon_threadsafe(lambda w=waiter: w.done() or w.set_result(None))
    _waiters.clear()


_waiters: list[asyncio.Future[None]] = []


async def wait_current(timeout: float = 30.0) -> Runtime:
    """The runtime, waiting (bounded) while it is still being opened at start-up."""
    if _current is not None:
        return _current
    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    _waiters.append(waiter)
    try:
        await asyncio.wait_for(waiter, timeout)
    except TimeoutError:
        raise RuntimeError(f"SeqDesk's engine did not open within {timeout:g} s") from None
    return current()


async def open_runtime(data_dir: Path | None = None, *, memory: bool | None = None,
                       mcp_wait: float = 0.0) -> Runtime:
    """Open the engine on a data folder (TinyDB) or in memory, recover what a dead process left,
    and connect the configured MCP servers (waiting up to `mcp_wait` s for their tools)."""
    if memory is None:
        memory = os.environ.get("SEQDESK_MEMORY") == "1"
    if memory:
        runtime = Runtime(engine=Engine(registry=default_registry()))
    else:
        runtime = await open_store_runtime(data_dir)
    runtime.recovered_runs = await runtime.engine.recover()
    await _start_mcp(runtime, mcp_wait)
    return runtime


async def open_store_runtime(data_dir: Path | None = None) -> Runtime:
    """The engine on the TinyDB stores of a data folder (the default one if None), without start-up
    recovery or MCP servers: `open_runtime` adds those. `DataFolderInUseError` if another has it."""
    notices: list[str] = []  # a damaged file found later (a history segment read late) joins it too
    stores = await open_stores(data_dir, on_damage=lambda damage: notices.append(damage.message))
    engine = Engine(registry=default_registry(), sequences=stores.sequences, runs=stores.runs,
                    interaction_store=stores.interactions, modes=stores.modes)
    runtime = Runtime(engine=engine, data_dir=stores.folder, notices=notices,
                      extras={"writer": stores.writer, "stores": stores})
    runtime.closers.append(stores.close)
    return runtime


async def _start_mcp(runtime: Runtime, wait: float) -> None:
    from gui.core.elicitation import InboxElicitationHandler
    from gui.mcp import JsonMcpSettings, McpManager, MemoryMcpSettings

    engine = runtime.engine
    runtime.mcp_settings = (JsonMcpSettings.in_folder(runtime.data_dir) if runtime.data_dir is not None
                            else MemoryMcpSettings())
    runtime.mcp = McpManager(engine.registry, lambda _config: InboxElicitationHandler(engine.interactions))
    runtime.closers.append(runtime.mcp.stop)
    await runtime.mcp.start_from(runtime.mcp_settings, wait)
    manager = runtime.mcp
    engine.tools_ready = lambda: manager.wait_settled(10.0)  # a run started at once waits for them
