"""The engine: the one door (`gui.core.door.operations.Operations`) implemented in this process.

Every operation of SPEC §1 and every operation on runs, requests and approval rules is written here
once; the pages, the HTTP API, the CLI and MCP call these and nothing behind them. `Engine` is given
its parts, never builds them: the catalog over a sequence store, the interaction service over its
store and approval modes, the executor that runs sequences (`gui.core.runs.Executor`), the run and
schedule stores. The composition root chooses them (`gui.runtime.compose_engine`): TinyDB stores in
the app, the in-memory ones (`gui.memory`) in tests and with `SEQDESK_MEMORY=1`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gui.core.asks import (
    Answered,
    Answerer,
    ApprovalModes,
    ApprovalRule,
    AuditEntry,
    InboxView,
    InteractionKind,
    InteractionRecord,
    InteractionService,
    InteractionStatusFilter,
    InteractionStore,
    RuleBook,
    Verdict,
    entries,
    verify,
)
from gui.core.causes import CancelReason, EndCause
from gui.core.door.agent_left import AgentLeaving
from gui.core.door.asks import AskState, ProgramAsk, ProgramAsks
from gui.core.door.batch import BatchAnswer, BatchOutcome, answer_each
from gui.core.door.catalog import Catalog, SequenceStore
from gui.core.door.documents import NotFoundError, document_from, summary
from gui.core.door.following import RunFollower
from gui.core.door.mcp_servers import McpServerChange, McpServerDoor, McpServerListing, McpServerSpec, McpServerView
from gui.core.door.operations import EventListener, Page, Saved
from gui.core.door.resuming import Resumes
from gui.core.door.schedule_book import ScheduleBook
from gui.core.door.stopping import Stopping
from gui.core.errors import Invalid
from gui.core.events import EventBus, EventStream, RunFinished
from gui.core.queries import StoredText
from gui.core.runs import (
    MAX_CANDIDATES,
    Executor,
    HostBook,
    HostInfo,
    Origin,
    ProcessControl,
    ResumeRefused,
    RunRecord,
    RunStatus,
    RunStopRequests,
    RunStore,
    Schedule,
    ScheduleStore,
    can_be_prefix,
    interrupt,
    off_loop,
    pick,
)
from gui.core.sequences import (
    Group,
    RunArgsError,
    Sequence,
    ValidationResult,
    help_text,
    to_document,
)
from gui.core.sequences import taken_names as names_taken_by
from gui.core.sequences.conditions import ConditionEvalError, ConditionSyntaxError, evaluate, parse_condition
from gui.core.tools import Registry, ServerStates, Tool, ToolListing, tool_listing


class WhenCallError(Invalid):
    """The condition of a `when_call` does not parse or cannot be evaluated."""


def condition_holds(when: str, args: dict[str, Any]) -> bool:
    """Whether a `when_call` condition holds for `args`; WhenCallError when it cannot be decided."""
    try:
        return evaluate(parse_condition(when), args)
    except (ConditionSyntaxError, ConditionEvalError) as exc:
        raise WhenCallError(f"condition `{when}`: {getattr(exc, 'message', exc)}") from None


@dataclass
class Engine:
    registry: Registry
    catalog: Catalog
    interactions: InteractionService
    runner: Executor
    runs: RunStore
    schedules: ScheduleStore
    bus: EventBus
    # Awaited before a run starts: lets tools that are still arriving (MCP servers connecting at
    # start-up) be there, so a run started right away does not find them missing. Bounded by its owner.
    tools_ready: Callable[[], Awaitable[Any]] | None = None
    # The configured MCP servers and their states (set by the composition root): `list_tools` shows them.
    server_states: ServerStates | None = None
    # The operating system's processes, to end the commands a dead app left running (at start-up).
    processes: ProcessControl | None = None
    # On a store a team's processes share: a Stop is claimed there, and reaches the process that runs it.
    stop_requests: RunStopRequests | None = None
    # The hosts a team's workers run steps on (`seqdesk worker`), when runs run on a team's executor.
    host_book: HostBook | None = None

    def __post_init__(self) -> None:
        self.rule_book = RuleBook(self.modes, self.bus, self.catalog.get)
        self.program_asks = ProgramAsks(self.interactions)
        self.schedule_book = ScheduleBook(self.schedules, self.catalog, self.runner, self.bus, self._tools_ready)
        self.agent_leaving = AgentLeaving(self.runner, self.runs)
        self.mcp_servers = McpServerDoor(self.bus)  # attached to the servers by the composition root
        self.registry.on_change(self.mcp_servers.tools_changed)
        self._on_close: list[Callable[[], Awaitable[None]]] = []
        self.resumes = Resumes(self.runner, self.runs, self.catalog)
        self.stopping = Stopping(self.runner, self.runs, self.bus)
        self.closed = False  # True once `close` began: streams of its events end

    # -- the stores under it ---------------------------------------------------------------------
    @property
    def sequences(self) -> SequenceStore:
        return self.catalog.store

    @property
    def interaction_store(self) -> InteractionStore:
        return self.interactions.store

    @property
    def modes(self) -> ApprovalModes:
        """The approval modes and rules, as the interaction service asks and saves them."""
        return self.interactions.modes

    # -- sequences -----------------------------------------------------------------------------
    async def list_sequences(self) -> list[dict[str, Any]]:
        """Each saved sequence's summary (a signature walks every group: many, in a worker thread)."""
        sequences = await self.catalog.list()
        return await off_loop(sum(len(s.groups) for s in sequences), lambda: [summary(s) for s in sequences])

    async def sequence_trees(self) -> list[Sequence]:
        """The saved trees themselves, sorted by name (the editor's library, the palette)."""
        return await self.catalog.list()

    async def get(self, name: str) -> Sequence | None:
        return await self.catalog.get(name)

    async def taken_names(self, replacing: str | None = None) -> set[str]:
        """The names a new sequence or group may not take (those of `replacing` are free)."""
        return names_taken_by(s for s in await self.catalog.list() if s.name != replacing)

    async def get_sequence_document(self, name: str) -> dict[str, Any] | None:
        sequence = await self.catalog.get(name)
        return to_document(sequence) if sequence is not None else None

    async def check(self, doc: Any, *, replacing: str | None = None, as_new: bool = False) -> ValidationResult:
        """Validate without saving; `replacing` is a saved sequence the document will replace
        (a rename), whose group names it may keep. `as_new`: the document must not take the name of
        another saved sequence (the editor's new sequence; a rename): every naming conflict at once."""
        return await self.catalog.check(doc, replacing=replacing, as_new=as_new)

    async def create(self, doc: Any, *, as_new: bool = False) -> Saved:
        """Validate and save in one step (replacing a saved sequence of the same name, unless `as_new`:
        then its name is a conflict, said with every other problem); InvalidSequenceError, carrying
        the whole result (its warnings too), on errors."""
        return Saved(*await self.catalog.create(doc, as_new=as_new))

    async def create_from(self, name: str | None = None, description: str = "", groups: Any = None,
                          file: str | None = None) -> Saved:
        # A file is read and decoded in a worker thread: the loop goes on answering meanwhile.
        return await self.create(await asyncio.to_thread(document_from, name, description, groups, file))

    async def rename(self, old_name: str, doc: Any) -> Saved:
        """Save `doc` in place of `old_name` in one store operation: never both, never neither."""
        return Saved(*await self.catalog.rename(old_name, doc))

    async def delete(self, name: str) -> bool:
        """Delete a saved sequence, and the rules made for its steps (`RuleBook.forget`)."""
        identity = await self.catalog.delete(name)
        if identity is not None:
            await self.rule_book.forget(name, identity)
        return identity is not None

    def help(self) -> str:
        return help_text()

    async def resolve(self, name: str) -> tuple[Sequence, Group | None]:
        """A saved sequence, or the saved group of that name with its sequence; NotFoundError."""
        return await self.catalog.resolve(name)

    # -- hosts ---------------------------------------------------------------------------------
    async def hosts(self) -> list[HostInfo]:
        """The hosts the team knows (a step's `on` names one) and their states; none when runs run in
        this process."""
        return await self.host_book.hosts() if self.host_book is not None else []

    # -- tools ---------------------------------------------------------------------------------
    def tools(self) -> list[Tool]:
        return sorted(self.registry, key=lambda t: t.name)

    def tool(self, name: str) -> Tool | None:
        return self.registry.get(name)

    async def list_tools(self) -> ToolListing:
        """Every tool the registry knows (built in and from MCP servers) and every configured server's
        state: what `seq_tools`, `seqdesk tools` and `GET /api/tools` show."""
        return tool_listing(self.registry, self.server_states)

    # -- MCP servers (`gui.core.door.mcp_servers`) ----------------------------------------------
    async def list_mcp_servers(self) -> McpServerListing:
        return await self.mcp_servers.listing()

    async def add_mcp_server(self, spec: McpServerSpec) -> McpServerView:
        return await self.mcp_servers.add(spec)

    async def update_mcp_server(self, name: str, change: McpServerChange) -> McpServerView:
        return await self.mcp_servers.update(name, change)

    async def remove_mcp_server(self, name: str) -> bool:
        return await self.mcp_servers.remove(name)

    async def sign_in_mcp_server(self, name: str, callback: str) -> str | None:
        return await self.mcp_servers.sign_in(name, callback)

    async def retry_mcp_server(self, name: str) -> bool:
        return await self.mcp_servers.retry(name)

    # -- runs ----------------------------------------------------------------------------------
    async def start(self, name: str, args: dict[str, Any] | None = None, *,
                    started_by: str | None = None) -> RunRecord:
        """Start a saved sequence (or, by its name, a single group) and return at once; `started_by`:
        the signed-in person who started it (a team server), whom its requests know."""
        await self._tools_ready()
        sequence, group = await self.catalog.resolve(name)
        origin = Origin(started_by=started_by) if started_by is not None else None
        return await self.runner.start(sequence, args or {}, group=group, origin=origin)

    async def start_document(self, doc: Any, args: dict[str, Any] | None = None, *,
                             started_by: str | None = None) -> RunRecord:
        """Start a sequence that is not saved (a file given to `seqdesk run`): validated against the
        tools (not the saved sequences, whose names it may share); DslError when it is not valid."""
        await self._tools_ready()
        sequence = await self.catalog.check_unsaved(doc)
        origin = Origin(started_by=started_by) if started_by is not None else None
        return await self.runner.start(sequence, args or {}, origin=origin)

    async def call(self, name: str, args: dict[str, Any] | None = None,
                   on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord:
        """Call one group or one whole sequence by name, with args, to its end. `on_event` hears the
        run's events and those of every run it calls; a cancelled call stops the run as `gave_up`."""
        await self._tools_ready()
        sequence, group = await self.catalog.resolve(name)
        return await self._follow(lambda: self.runner.start(sequence, args or {}, group=group), on_event, gave_up)

    async def call_document(self, doc: Any, args: dict[str, Any] | None = None,
                            on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord:
        await self._tools_ready()
        sequence = await self.catalog.check_unsaved(doc)
        return await self._follow(lambda: self.runner.start(sequence, args or {}), on_event, gave_up)

    async def run(self, name: str, args: dict[str, Any] | None = None) -> RunRecord:
        """Run a saved sequence by name to its end."""
        await self._tools_ready()
        sequence = await self.catalog.get(name)
        if sequence is None:
            raise NotFoundError(f"there is no saved sequence named '{name}'")
        record = await self.runner.start(sequence, args or {})
        return await self.runner.wait(record.run_id)

    async def when_call(self, name: str, when: str, args: dict[str, Any] | None = None,
                        on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord | None:
        """Call only when `when` (a condition over `args`) holds; None when it does not."""
        if not condition_holds(when, args or {}):
            return None
        return await self.call(name, args, on_event, gave_up=gave_up)

    async def resume(self, run_id: str) -> RunRecord:
        """Start the next attempt of a failed, interrupted or stopped run and return at once
        (`gui.core.door.resuming`): NotFoundError for an unknown run, ResumeRefused when it cannot be."""
        await self._tools_ready()
        return await self.resumes.resume(run_id)

    async def call_resume(self, run_id: str, on_event: EventListener | None = None, *,
                          gave_up: EndCause = "person") -> RunRecord:
        """`resume`, to the end of the new attempt (`on_event` and `gave_up` as for `call`)."""
        return await self._follow(lambda: self.resume(run_id), on_event, gave_up)

    async def _follow(self, start: Callable[[], Awaitable[RunRecord]], on_event: EventListener | None,
                      gave_up: EndCause) -> RunRecord:
        follower = RunFollower(on_event) if on_event is not None else None
        unsubscribe = self.bus.subscribe(follower) if follower is not None else None
        try:
            record = await start()
            if follower is not None:
                follower.follow(record.run_id)
            try:
                return await self.runner.wait(record.run_id)
            except asyncio.CancelledError:
                await asyncio.shield(self.stop(record.run_id, gave_up))
                raise
        finally:
            if unsubscribe is not None:
                unsubscribe()

    async def _tools_ready(self) -> None:
        if self.tools_ready is not None:
            await self.tools_ready()

    async def stop(self, run_id: str, cause: EndCause = "person") -> bool:
        """Stop a running run; False when it is not running (or another Stop won): on a team's shared
        store the Stop is claimed there first (`gui.core.door.stopping`)."""
        return await self.stopping.stop(run_id, cause, self.stop_requests)

    async def agent_stopped_waiting(self, run_id: str) -> bool:
        """The agent that asked for the run stopped waiting for it; its finished record will say when
        (`gui.core.door.agent_left`). False when the run does not go on (ended, or unknown)."""
        return self.agent_leaving.note(run_id)

    async def get_run(self, run_id: str) -> RunRecord | None:
        """A run's record: live while it goes on, stored once it has ended."""
        live = self.runner.snapshot(run_id)
        return live if live is not None else await self.runs.get(run_id)

    async def find_run(self, run_id: str) -> RunRecord | None:
        """A run by its whole id or by the start of it, as screens show it ("0911dd99"); None when no
        run has it; AmbiguousRunIdError when several runs start with it."""
        record = await self.get_run(run_id)
        if record is not None or not can_be_prefix(run_id):
            return record
        ids = [*self.runner.active_ids(), *await self.runs.ids_starting(run_id, MAX_CANDIDATES + 1)]
        full = pick(run_id, ids)
        return await self.get_run(full) if full is not None else None

    async def list_runs(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        """The newest runs (`run_page` filters them and counts them too)."""
        return (await self.run_page(limit=limit, offset=offset)).items

    async def run_page(self, *, status: RunStatus | None = None, sequence: str | None = None,
                       started_from: float | None = None, started_to: float | None = None,
                       text: str | None = None, limit: int = 50, offset: int = 0) -> Page[RunRecord]:
        """Runs newest first, filtered and paged; the running ones as they are now."""
        page = await self.runs.query(status=status, sequence=sequence, started_from=started_from,
                                     started_to=started_to, text=text, limit=limit, offset=offset)
        live = [self.runner.snapshot(r.run_id) if not r.finished else None for r in page.items]
        return Page([fresh or r for fresh, r in zip(live, page.items, strict=True)], page.total)

    async def run_page_texts(self, *, status: RunStatus | None = None, sequence: str | None = None,
                             started_from: float | None = None, started_to: float | None = None,
                             text: str | None = None, limit: int = 50,
                             offset: int = 0) -> Page[RunRecord | StoredText]:
        """`run_page` for a page sent on as JSON (the HTTP API): a run the store vouches for is its
        JSON text, unread (`RunStore.query_texts`); a run that goes on here is as it is now."""
        page = await self.runs.query_texts(status=status, sequence=sequence, started_from=started_from,
                                           started_to=started_to, text=text, limit=limit, offset=offset)
        items: list[RunRecord | StoredText] = []
        for item in page.items:
            if isinstance(item, StoredText):
                items.append(self.runner.snapshot(item.id) or item)
            else:
                items.append((self.runner.snapshot(item.run_id) if not item.finished else None) or item)
        return Page(items, page.total)

    # -- interactions --------------------------------------------------------------------------
    async def pending(self, run_id: str | None = None) -> list[InteractionRecord]:
        return await self.interactions.pending(run_id)

    async def interaction_page(self, *, status: InteractionStatusFilter | None = None,
                               kind: InteractionKind | None = None, run_id: str | None = None,
                               sequence: str | None = None, tool_name: str | None = None,
                               limit: int = 50, offset: int = 0) -> Page[InteractionRecord]:
        """Requests newest first, filtered and paged in the store."""
        return await self.interactions.store.query(status=status, kind=kind, run_id=run_id, sequence=sequence,
                                                  tool_name=tool_name, limit=limit, offset=offset)

    async def interaction_page_texts(self, *, status: InteractionStatusFilter | None = None,
                                     kind: InteractionKind | None = None, run_id: str | None = None,
                                     sequence: str | None = None, tool_name: str | None = None,
                                     limit: int = 50, offset: int = 0) -> Page[InteractionRecord | StoredText]:
        """`interaction_page` for a page sent on as JSON (the HTTP API): a request the store vouches
        for is its JSON text, unread (`InteractionStore.query_texts`)."""
        return await self.interactions.store.query_texts(status=status, kind=kind, run_id=run_id, sequence=sequence,
                                                        tool_name=tool_name, limit=limit, offset=offset)

    async def get_interaction(self, interaction_id: str) -> InteractionRecord | None:
        return await self.interactions.get(interaction_id)

    async def respond(self, interaction_id: str, response: Any, by: Answerer | None = None) -> Answered:
        """Answer a request; `by` is who answered and through which surface (for the record of decisions)."""
        return await self.interactions.respond(interaction_id, response, by)

    async def inbox(self, person: str, view: InboxView) -> list[InteractionRecord]:
        """The pending requests in one view of `person`'s inbox: "needs_you", "waiting", "started_by_you"."""
        return await self.interactions.inbox(person, view)

    async def respond_many(self, answers: list[BatchAnswer], by: Answerer | None = None) -> list[BatchOutcome]:
        """Answer several requests at once, each through `respond` (its gates), each with its own outcome."""
        return await answer_each(self.respond, answers, by)

    async def hand_over(self, interaction_id: str, to: str, note: str = "",
                        by: Answerer | None = None) -> InteractionRecord:
        """Hand a request to `person:NAME` or `role:NAME` with a note (recorded as a delegation)."""
        return await self.interactions.hand_over(interaction_id, to, note, by)

    async def decisions(self, since_ms: int | None = None) -> tuple[list[AuditEntry], Verdict]:
        """The record of decisions (oldest first) and whether its chain is unbroken; empty without one."""
        audit = self.interactions.audit
        documents = await audit.documents() if audit is not None else []
        head = await audit.head() if audit is not None else None
        # hashing 10,000 entries takes a while: off the event loop
        return await asyncio.to_thread(lambda: (entries(documents, since_ms=since_ms), verify(documents, head)))

    async def cancel_interaction(self, interaction_id: str, reason: CancelReason) -> bool:
        return await self.interactions.cancel(interaction_id, reason)

    # -- a program asking the person (`ProgramAsks`) ----------------------------------------------
    async def ask(self, ask: ProgramAsk) -> AskState:
        return await self.program_asks.ask(ask)

    async def ask_state(self, ask_id: str, wait: float = 0.0) -> AskState:
        return await self.program_asks.state(ask_id, wait)

    async def withdraw_ask(self, ask_id: str) -> AskState:
        return await self.program_asks.withdraw(ask_id)

    # -- approval rules ------------------------------------------------------------------------
    async def approval_rules(self) -> list[ApprovalRule]:
        """Every rule that lets a tool run without asking: a tool always allowed, then the narrower ones."""
        return await self.rule_book.all()

    async def revoke_approval_rule(self, rule_id: str) -> ApprovalRule:
        """Take a rule back (what it allowed asks again); durable when it returns; LookupError for an
        unknown id. Announced as `settings.changed`."""
        return await self.rule_book.revoke(rule_id)

    async def earlier_version_rules(self) -> set[str]:
        """The ids of the rules made for a step their sequence no longer has as it was: they allow nothing."""
        return await self.rule_book.earlier_versions()

    # -- schedules (run only while the app is open: `ScheduleBook`) ------------------------------
    async def list_schedules(self) -> list[Schedule]:
        return await self.schedule_book.list()

    async def create_schedule(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        return await self.schedule_book.create(sequence, args, every, cron)

    async def pause_schedule(self, schedule_id: str, paused: bool = True) -> Schedule:
        return await self.schedule_book.pause(schedule_id, paused)

    async def delete_schedule(self, schedule_id: str) -> bool:
        return await self.schedule_book.delete(schedule_id)

    def start_schedules(self) -> None:
        """Run the schedules from now on (only the app does, while it is open); on a store other
        processes share (a team's, where only the process that leads calls this), follow up every
        pending request too, whichever process asked it (`InteractionService.watch_all`)."""
        self.schedule_book.start()
        if self.interactions.shared:
            self.interactions.watch_all()

    async def stop_schedules(self) -> None:
        await self.schedule_book.stop()
        await self.interactions.stop_watching()

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """`listener` hears every event from now on; call the result to stop."""
        return self.bus.subscribe(listener)

    def events(self, maxsize: int = 10_000) -> EventStream:
        """The events from now on as an async stream (subscribed when made)."""
        return self.bus.stream(maxsize)

    @property
    def inbox_url(self) -> str | None:
        """None: requests of this engine's runs are answered by whoever holds it (the app, or the
        terminal); a remote engine names the app's inbox instead."""
        return None

    def on_close(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run `hook` when the engine closes, after its runs and requests have ended."""
        self._on_close.append(hook)

    # -- lifecycle -----------------------------------------------------------------------------
    async def recover(self) -> list[str]:
        """At start-up: what a dead process left pending is cancelled, its runs interrupted, and the
        commands they had started that still run are killed (`gui.core.runs.orphans`)."""
        run_ids = set(await self.interactions.recover(keep=frozenset(self.runner.active_ids())))
        for record in await self.runs.running():
            run_ids.add(record.run_id)
        run_ids -= set(self.runner.active_ids())  # still going on (on a durable executor): not interrupted
        for run_id in run_ids:
            found = await self.runs.get(run_id)
            if found is None or found.finished:
                continue
            record = found
            interrupt(record, self.processes)
            await self.runs.save(record)
            self.bus.publish(RunFinished, run_id, sequence=record.sequence, status="interrupted",
                             error=record.error, outputs=record.outputs, cause=record.cause)
        return sorted(run_ids)

    async def close(self) -> None:
        """Closing the app: runs stop and pending requests end with the cause `app_closed` (`session_disposed`)."""
        self.closed = True
        await self.stop_schedules()
        await self.runner.stop_all("app_closed")
        await self.agent_leaving.settle()
        # The runs still going on are a durable executor's (in process, none is left): their requests stay.
        await self.interactions.cancel_all("session_disposed", "app_closed", keep=frozenset(self.runner.active_ids()))
        for hook in self._on_close:
            await hook()


__all__ = ["Engine", "NotFoundError", "ResumeRefused", "RunArgsError", "WhenCallError",
           "condition_holds"]
