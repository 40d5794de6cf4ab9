"""The parts the composition root (`gui.app`) builds for one process: stores, registry, MCP
servers and the engine on them, and how they are closed.

`compose_engine` wires the engine from its parts, explicitly: the catalog, the interaction service
and the runner (the in-process `Executor`) on one bus, over the stores it is given. `open_runtime`
opens them: with a data folder on the TinyDB stores (one process per folder, start-up recovery);
with a `postgresql://` store on the PostgreSQL stores (`gui.pgstore`: a team's processes share the
database); with `memory=True` on the in-memory stores (`gui.memory`: `SEQDESK_MEMORY=1`, demos). The store
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
from typing import TYPE_CHECKING, Protocol

from gui.core.asks import ApprovalModes, AuditLog, InteractionService, InteractionStore
from gui.core.door import Catalog, Engine, SequenceStore
from gui.core.events import EventBus
from gui.core.people import Directory
from gui.core.runs import Executor, HostBook, ProcessControl, Runner, RunStore, ScheduleStore, paused_collection
from gui.core.tools import Registry
from gui.prefs import Prefs, PrefsFile
from gui.store.audit import FileAuditLog
from gui.store.open import Stores, open_stores
from gui.tools import McpResource, default_registry
from gui.tools.processes import OsProcesses

if TYPE_CHECKING:  # psycopg and the MCP SDK are imported only when used
    from gui.core.people import Accounts
    from gui.mcp import McpSettingsStore
    from gui.mcp.managed import ManagedServers
    from gui.mcp.manager import McpManager
    from gui.mcp.sign_in import SignIns
    from gui.pgstore import PgStores


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
                   retry_backoff: float = 0.2, audit: AuditLog | None = None, executor: str | None = None,
                   directory: Directory | None = None, process: str | None = None,
                   claim: Callable[[str], Awaitable[bool]] | None = None) -> Engine:
    """The engine on `stores`, running sequences in this process (`Runner`), or on the Temporal
    service `executor` names (`temporal://host:port/namespace`: `gui.temporal`); `processes` ends
    the commands a dead app left running (at start-up recovery); `audit` records every decision;
    `directory` (a team server's people and roles) turns on who may answer and how many must agree.
    On a team's database, `process` names this process (its runs' task queue on Temporal) and
    `claim` says whether it holds a run (`PgRunStore.claim`)."""
    bus = EventBus()
    catalog = Catalog(stores.sequences, registry, bus)
    interactions = InteractionService(stores.interactions, bus, modes=stores.modes, check_edit=registry.edit_problems,
                                      audit=audit, directory=directory)
    runner: Executor
    hosts: HostBook | None = None
    if executor is None:
        runner = Runner(registry, interactions, stores.runs, bus, catalog.resolve, retry_backoff=retry_backoff)
    else:
        from gui.temporal import TemporalExecutor, parse_target  # only a team's app needs the SDK

        temporal = TemporalExecutor(parse_target(executor), registry, interactions, stores.runs, bus,
                                    catalog.resolve, retry_backoff=retry_backoff, process=process, claim=claim)
        catalog.hosts = temporal.host_names  # a step's `on` names a host whose worker registered there
        runner = hosts = temporal
    return Engine(registry=registry, catalog=catalog, interactions=interactions, runner=runner, runs=stores.runs,
                  schedules=stores.schedules, bus=bus, processes=processes,
                  host_book=hosts)


@dataclass
class Runtime:
    engine: Engine
    data_dir: Path | None = None
    closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    recovered_runs: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # things a person should read (a file moved aside)
    stores: Stores | None = None  # the TinyDB stores, when on a data folder
    database: PgStores | None = None  # the PostgreSQL stores, when on a team's database
    mcp: McpManager | None = None  # the MCP servers' connections, once started
    mcp_settings: McpSettingsStore | None = None  # where their configurations are kept
    mcp_sign_ins: SignIns | None = None  # the sign-ins to MCP servers people started
    secrets_opening: asyncio.Future[object] | None = None  # the secret store being chosen, after start-up
    accounts: Accounts | None = None  # a team's people (on its database): who signs in, with which roles

    def preferences(self, name: str) -> Prefs:
        """The small settings object `name` a person chose (dark mode…): a row of a team's database, a
        file of the data folder, or (in memory) a dict gone when the app closes."""
        if self.database is not None:
            return self.database.preferences.named(name)
        return PrefsFile(self.data_dir, name)

    def start_schedules(self) -> None:
        """Run the schedules from now on: here, or on a team's database in the one process that
        holds its schedules' lock (`gui.pgstore.Leader`), so each turn fires once. A schedule changed
        in another process (its event relayed here) is looked at again at once."""
        if self.database is None:
            self.engine.start_schedules()
            return
        from gui.core.events import SettingsChanged
        from gui.pgstore import Leader

        scheduler = self.engine.schedule_book.scheduler
        self.closers.append(self.engine.subscribe(
            lambda e: scheduler.changed.set() if isinstance(e, SettingsChanged) and e.setting == "schedule" else None))

        leader = Leader(self.database.url, self.database.name, self.engine.start_schedules,
                        self.engine.stop_schedules)
        leader.start()
        self.closers.append(leader.close)

    async def close(self) -> None:
        """The engine (its runs and requests end), then what it runs on. The garbage collector
        pauses throughout, as `Runner.stop_all` does: closing with thousands of runs waiting makes
        and frees hundreds of thousands of objects (records, their stored forms), and a pass of the
        collector in the middle walks every one still held (a quarter of a second with 10,000). On a
        data folder, what the ends move to history is not vouched for meanwhile (`Stores.closing`)."""
        with paused_collection():
            if self.stores is not None:
                self.stores.closing()
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
                       manage_mcp: bool = True, store: str | None = None, executor: str | None = None,
                       lease: float | None = None, process: str | None = None) -> Runtime:
    """Open the engine on a data folder (TinyDB), a PostgreSQL database (`store`) or in memory, recover
    what a dead process left, and connect the configured MCP servers (waiting up to `mcp_wait` s).
    `executor` (else SEQDESK_EXECUTOR): where runs run (`chosen_executor`); on Temporal, the runs still
    going on there are held again before recovery, which leaves them be.

    `manage_mcp=False` (the CLI, `seqdesk mcp`: nobody adds a server while they run) starts the MCP
    servers' manager only when the settings list a server, so a folder without any never loads the
    MCP SDK; the engine then lists no servers and its resource tool says none is connected.
    `lease`, `process`: on a database, seconds a run's lease lasts and this process's stable name
    (`open_database_runtime`)."""
    executor = chosen_executor(executor)
    if memory:
        from gui.memory import MemoryAuditLog, MemoryStores

        runtime = Runtime(engine=compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog(),
                                                executor=executor))
    elif store is not None and store.startswith(("postgresql://", "postgres://")):
        runtime = await open_database_runtime(store, executor=executor, lease=lease, process=process)
    else:
        runtime = await open_store_runtime(data_dir, executor=executor)
    if runtime.database is None:  # on a shared database, runs are recovered as their leases expire
        await take_up(runtime)
        runtime.recovered_runs = await runtime.engine.recover()
    await _start_mcp(runtime, mcp_wait, manage=manage_mcp)
    return runtime


async def open_store_runtime(data_dir: Path | None = None, *, executor: str | None = None) -> Runtime:
    """The engine on the TinyDB stores of a data folder (the default one if None), without start-up
    recovery or MCP servers: `open_runtime` adds those. `DataFolderInUseError` if another has it."""
    notices: list[str] = []  # a damaged file found later (a history segment read late) joins it too
    stores = await open_stores(data_dir, on_damage=lambda damage: notices.append(damage.message))
    try:
        audit = await FileAuditLog.open(stores.folder, stores.writer)
    except BaseException:
        stores.close()
        raise
    engine = compose_engine(default_registry(), stores, processes=OsProcesses(), audit=audit,
                            executor=chosen_executor(executor))
    runtime = Runtime(engine=engine, data_dir=stores.folder, notices=notices, stores=stores)
    runtime.closers.append(audit.close)  # after the stores' close (closers run last first): its writes are done
    runtime.closers.append(stores.close)
    return runtime


async def take_up(runtime: Runtime) -> None:
    """On Temporal, hold again the runs this process's queue still has going on (`TemporalExecutor.take_up`)."""
    taking_up = getattr(runtime.engine.runner, "take_up", None)
    if taking_up is not None:
        await taking_up()


async def open_database_runtime(url: str, *, lease: float | None = None, executor: str | None = None,
                                process: str | None = None) -> Runtime:
    """The engine on the PostgreSQL stores at `url`, without MCP servers (`open_runtime` adds them).
    DatabaseUnreachable, DatabaseNewerError, SecretKeyError or ProcessNameTaken (a sentence each) when it
    cannot be used. `process`: this process's stable name among the team's (a team server's; None: a
    name of its own): restarted under it, it holds again the runs on Temporal it left going on, before
    the runs whose process is gone (their lease, `lease` s, expired) are ended, now and from then on."""
    from gui.pgstore import (
        EVENTS,
        LEASE,
        RULES,
        EventRelay,
        Leases,
        StopsHeard,
        announce_run,
        open_pg_stores,
        take_over_expired,
    )

    stores = await open_pg_stores(url, process=process)
    accounts = team_accounts(stores)  # who may answer, and how many must agree, is read from the team's people
    engine = compose_engine(default_registry(), stores, processes=OsProcesses(), audit=stores.audit,
                            executor=chosen_executor(executor), directory=accounts, process=stores.name,
                            claim=stores.runs.claim)
    runtime = Runtime(engine=engine, database=stores, accounts=accounts)
    runtime.closers.append(stores.close)
    # an answer given in another process wakes the tool waiting here; pages hear of others' requests and runs
    engine.interactions.shared = True
    await stores.follow(engine.interactions.changed_elsewhere, lambda run_id: announce_run(engine, run_id))
    # ... and every other event published in any process (a tool started, its output, its end)
    relay = EventRelay(stores.pool, stores.name, engine.bus)
    await stores.listen(EVENTS, relay.received)
    relay.start()
    runtime.closers.append(relay.close)
    await stores.listen(RULES, lambda _changed: stores.modes.reload())  # an "always allow" given elsewhere
    await stores.follow_preferences()  # dark mode, the language, notification settings chosen elsewhere
    # a Stop is claimed on the database (one wins), and reaches the process that runs the run
    engine.stop_requests = stores.stop_requests
    stops = StopsHeard(engine.runner, stores.stop_requests)
    await stores.hear_stops(stops.hear)
    runtime.closers.append(stops.close)
    leases = Leases(engine, stores.runs, LEASE if lease is None else lease, stops)
    try:
        await take_up(runtime)  # its own runs first: they are not taken over as expired
        runtime.recovered_runs = await take_over_expired(engine, stores.runs, leases.lease)
    except BaseException:  # Temporal or the database away: what was opened is closed (its name freed)
        await runtime.close_parts()
        raise
    leases.start()
    runtime.closers.append(leases.close)
    return runtime


def team_accounts(stores: PgStores) -> Accounts:
    """The people of a team's database, their passwords hashed with argon2, wrong ones counted across
    every process of the team."""
    from gui.core.people import Accounts
    from gui.people import Argon2Hasher

    return Accounts(stores.people, Argon2Hasher(), throttle=stores.sign_in_throttle)


async def _start_mcp(runtime: Runtime, wait: float, *, manage: bool) -> None:
    from gui.mcp import JsonMcpSettings, McpConfigError, MemoryMcpSettings

    settings: McpSettingsStore = (runtime.database.mcp_settings if runtime.database is not None
                                  else JsonMcpSettings.in_folder(runtime.data_dir) if runtime.data_dir is not None
                                  else MemoryMcpSettings())
    try:
        listed = bool(await settings.list())
    except McpConfigError:
        listed = True  # the manager says what is wrong with the file, as it does in the app
    if not manage and not listed:
        return
    from gui.core.asks import InboxElicitationHandler
    from gui.mcp.managed import ManagedServers
    from gui.mcp.manager import McpManager
    from gui.mcp.sign_in import SignIns

    engine = runtime.engine
    manager = McpManager(engine.registry, lambda _config: InboxElicitationHandler(engine.interactions),
                         secrets=settings.secrets)
    runtime.mcp_settings, runtime.mcp = settings, manager
    runtime.mcp_sign_ins = sign_ins = SignIns(settings.secrets)
    runtime.closers.append(manager.stop)
    runtime.closers.append(sign_ins.close)
    opening = getattr(settings.secrets, "open", None)
    if callable(opening) and listed:
        # Servers to connect: decide keyring or file now, off the event loop (importing keyring is slow).
        # With none, the first page is drawn without that work beside it; Settings decides it, in a
        # worker thread too, when it first lists the servers.
        runtime.secrets_opening = asyncio.ensure_future(asyncio.to_thread(opening))
    await manager.start_from(settings, wait)

    async def tools_ready() -> None:  # a run started at once waits for the servers still connecting
        await manager.wait_settled(10.0)

    engine.tools_ready = tools_ready
    engine.server_states = manager.server_infos
    managed = ManagedServers(settings, manager, sign_ins)
    engine.mcp_servers.attach(managed)
    if runtime.database is not None:  # a server another process adds, changes or removes: here too
        await _follow_mcp(runtime.database, managed)
    resource_tool = engine.registry.get("mcp_resource")
    if isinstance(resource_tool, McpResource):
        resource_tool.attach(manager)


async def _follow_mcp(database: PgStores, managed: ManagedServers) -> None:
    from gui.pgstore import MCP_SERVERS

    async def changed(name: str) -> None:
        await database.mcp_settings.reread_secrets()  # its header values, kept by the process that changed it
        await managed.changed_elsewhere(name)

    await database.listen(MCP_SERVERS, changed)
