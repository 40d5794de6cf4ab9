"""The parts the composition root (`gui.app`) builds for one process: stores, registry, MCP
servers and the engine on them, and how they are closed.

`compose_engine` wires the engine from its parts, explicitly: the catalog, the interaction service
and the runner (the in-process `Executor`) on one bus, over the stores it is given. `open_runtime`
opens them: with a data folder on the TinyDB stores (one process per folder, start-up recovery);
with `memory=True` on the in-memory stores (`gui.memory`: `SEQDESK_MEMORY=1`, demos). The store
layer only opens the stores (`gui.store.open_stores`); what it had to repair becomes the runtime's
`notices`, which every page shows. Nothing here is global: the composition root hands the runtime
(or just its engine) to whoever needs it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from gui.core.asks import ApprovalModes, InteractionService, InteractionStore
from gui.core.door import Catalog, Engine, SequenceStore
from gui.core.events import EventBus
from gui.core.runs import Executor, ProcessControl, Runner, RunStore, ScheduleStore
from gui.core.tools import Registry
from gui.mcp.config import McpSettingsStore
from gui.mcp.manager import McpManager
from gui.mcp.sign_in import SignIns
from gui.memory import MemoryStores
from gui.store.open import Stores, open_stores
from gui.tools import McpResource, default_registry
from gui.tools.processes import OsProcesses


class EngineStores(Protocol):
    """The stores an engine keeps things in: `gui.store.Stores` (TinyDB) or `gui.memory.MemoryStores`."""

    @property
    def sequences(self) -> SequenceStore: ...

    @property
    def runs(self) -> RunStore: ...

    @property
    def interactions(self) -> InteractionStore: ...

    @property
    def modes(self) -> ApprovalModes: ...

    @property
    def schedules(self) -> ScheduleStore: ...


def chosen_executor(given: str | None = None) -> str | None:
    """The executor's address: `--executor`, else SEQDESK_EXECUTOR; None (or "in-process"): in this process."""
    text = (given or os.environ.get("SEQDESK_EXECUTOR") or "").strip()
    return None if text in ("", "in-process") else text


def compose_engine(registry: Registry, stores: EngineStores, *, processes: ProcessControl | None = None,
                   retry_backoff: float = 0.2, executor: str | None = None) -> Engine:
    """The engine on `stores`, running sequences in this process (`Runner`), or on the Temporal
    service `executor` names (`temporal://host:port/namespace`: `gui.temporal`); `processes` ends
    the commands a dead app left running (at start-up recovery)."""
    bus = EventBus()
    catalog = Catalog(stores.sequences, registry, bus)
    interactions = InteractionService(stores.interactions, bus, modes=stores.modes, check_edit=registry.edit_problems)
    runner: Executor
    if executor is None:
        runner = Runner(registry, interactions, stores.runs, bus, catalog.resolve, retry_backoff=retry_backoff)
    else:
        from gui.temporal import TemporalExecutor, parse_target  # only a team's app needs the SDK

        runner = TemporalExecutor(parse_target(executor), registry, interactions, stores.runs, bus, catalog.resolve,
                                  retry_backoff=retry_backoff)
    return Engine(registry=registry, catalog=catalog, interactions=interactions, runner=runner, runs=stores.runs,
                  schedules=stores.schedules, bus=bus, processes=processes)


@dataclass
class Runtime:
    engine: Engine
    data_dir: Path | None = None
    closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    recovered_runs: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # things a person should read (a file moved aside)
    stores: Stores | None = None  # the TinyDB stores, when on a data folder
    mcp: McpManager | None = None  # the MCP servers' connections, once started
    mcp_settings: McpSettingsStore | None = None  # where their configurations are kept
    mcp_sign_ins: SignIns | None = None  # the sign-ins to MCP servers people started
    secrets_opening: asyncio.Future[object] | None = None  # the secret store being chosen, after start-up

    async def close(self) -> None:
        await self.engine.close()
        await self.close_parts()

    async def close_parts(self) -> None:
        """Close what the engine runs on (MCP servers, stores), after the engine itself."""
        for closer in reversed(self.closers):
            result = closer()
            if result is not None:
                await result
        self.closers.clear()


async def open_runtime(data_dir: Path | None = None, *, memory: bool = False, mcp_wait: float = 0.0,
                       executor: str | None = None) -> Runtime:
    """Open the engine on a data folder (TinyDB) or in memory, recover what a dead process left,
    and connect the configured MCP servers (waiting up to `mcp_wait` s for their tools). `executor`
    (else SEQDESK_EXECUTOR): where runs run (`chosen_executor`); on Temporal, the runs still going on
    there are held again before recovery, which leaves them be."""
    executor = chosen_executor(executor)
    if memory:
        runtime = Runtime(engine=compose_engine(default_registry(), MemoryStores(), executor=executor))
    else:
        runtime = await open_store_runtime(data_dir, executor=executor)
    take_up = getattr(runtime.engine.runner, "take_up", None)
    if take_up is not None:
        await take_up()
    runtime.recovered_runs = await runtime.engine.recover()
    await _start_mcp(runtime, mcp_wait)
    return runtime


async def open_store_runtime(data_dir: Path | None = None, *, executor: str | None = None) -> Runtime:
    """The engine on the TinyDB stores of a data folder (the default one if None), without start-up
    recovery or MCP servers: `open_runtime` adds those. `DataFolderInUseError` if another has it."""
    notices: list[str] = []  # a damaged file found later (a history segment read late) joins it too
    stores = await open_stores(data_dir, on_damage=lambda damage: notices.append(damage.message))
    engine = compose_engine(default_registry(), stores, processes=OsProcesses(), executor=chosen_executor(executor))
    runtime = Runtime(engine=engine, data_dir=stores.folder, notices=notices, stores=stores)
    runtime.closers.append(stores.close)
    return runtime


async def _start_mcp(runtime: Runtime, wait: float) -> None:
    from gui.core.asks import InboxElicitationHandler
    from gui.mcp import JsonMcpSettings, ManagedServers, MemoryMcpSettings

    engine = runtime.engine
    settings: McpSettingsStore = (JsonMcpSettings.in_folder(runtime.data_dir) if runtime.data_dir is not None
                                  else MemoryMcpSettings())
    manager = McpManager(engine.registry, lambda _config: InboxElicitationHandler(engine.interactions),
                         secrets=settings.secrets)
    runtime.mcp_settings, runtime.mcp = settings, manager
    runtime.mcp_sign_ins = sign_ins = SignIns(settings.secrets)
    runtime.closers.append(manager.stop)
    runtime.closers.append(sign_ins.close)
    opening = getattr(settings.secrets, "open", None)
    if callable(opening):  # decide keyring or file off the event loop (importing keyring is slow)
        runtime.secrets_opening = asyncio.ensure_future(asyncio.to_thread(opening))
    await manager.start_from(settings, wait)

    async def tools_ready() -> None:  # a run started at once waits for the servers still connecting
        await manager.wait_settled(10.0)

    engine.tools_ready = tools_ready
    engine.server_states = manager.server_infos
    engine.mcp_servers.attach(ManagedServers(settings, manager, sign_ins))
    resource_tool = engine.registry.get("mcp_resource")
    if isinstance(resource_tool, McpResource):
        resource_tool.attach(manager)
