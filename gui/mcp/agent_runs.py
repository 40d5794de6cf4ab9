"""The runs agents started over MCP, owned by the server rather than by the request that asked.

A person may take minutes or hours to answer a run's approval, longer than an agent's client waits
for one request. So the run is not the request's: it goes on when the client gives up (its request
cancelled, its connection gone) and the person may still answer. Only the agent cancelling it
(`tasks/cancel`) stops it, recorded as "agent_cancelled". When the request gives up, the run's
record is told (`AgentRuns.left`): it will say the agent stopped waiting while the run went on.
A client that asked for a task reads the run's state here (`tasks/get`); one that did not waits on
the request, which is told of progress.

When the server itself ends (the agent's client left), the runs still waiting go on if someone
else can answer them (the app's inbox); otherwise they stop as "the agent stopped waiting". A task's
id is written down with its run's id as soon as that is known (`gui.mcp.task_book`), so a server
started again answers for it from the run's record.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from gui.core.causes import EndCause
from gui.core.errors import SeqDeskError
from gui.core.events import Event, GroupFinished, RunFinished, RunStarted, ToolEvent, ToolProgress, ToolWaiting
from gui.mcp.task_book import TaskBook

log = logging.getLogger(__name__)

CANCELLED: EndCause = "agent_cancelled"
RunState = Literal["working", "input_required", "completed", "failed", "cancelled"]
Stop = Callable[[str, EndCause], Awaitable[bool]]
Left = Callable[[str], Awaitable[bool]]  # `Operations.agent_stopped_waiting`


@dataclass
class Waiting:
    """A request for a person that holds the run: its inbox item."""

    interaction_id: str
    tool_name: str
    run_id: str


@dataclass
class AgentRun:
    """One `seq_run` / `seq_call` / `seq_resume` of an agent, from its call to its result."""

    id: str
    tool: str
    is_task: bool = False  # a task-augmented call: kept for `tasks/get` after it ended
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    run_id: str | None = None
    message: str | None = None
    waiting: dict[tuple[str | None, int, int], Waiting] = field(default_factory=dict)
    result: Any = None  # the tool's CallToolResult once it ended
    error: BaseException | None = None
    cancelled: bool = False
    task: asyncio.Task[Any] | None = None
    on_known: Callable[[AgentRun], None] | None = None  # told once, when its run's id is known
    _known: asyncio.Event = field(default_factory=asyncio.Event)
    _loop: asyncio.AbstractEventLoop | None = None
    _owner: int = field(default_factory=threading.get_ident)

    @property
    def state(self) -> RunState:
        if self.task is None or not self.task.done():
            return "input_required" if self.waiting else "working"
        if self.cancelled:
            return "cancelled"
        return "failed" if self.error is not None else "completed"

    def on_event(self, event: Event) -> None:
        """Hears the run's events (and those of the runs it calls): its id, and who it waits for.
        An event published on another thread is heard on the loop that carries the run."""
        if self._loop is not None and threading.get_ident() != self._owner:
            self._loop.call_soon_threadsafe(self._hear, event)
        else:
            self._hear(event)

    def _hear(self, event: Event) -> None:
        self.message = progress_words(event) or self.message
        if self.run_id is None and event.run_id and (not isinstance(event, RunStarted) or event.parent is None):
            self.run_id = event.run_id
            self._known.set()
            if self.on_known is not None:
                self.on_known(self)
        if isinstance(event, ToolEvent):
            where = (event.run_id, event.group, event.tool)
            if isinstance(event, ToolWaiting):
                self.waiting[where] = Waiting(event.interaction_id, event.tool_name, event.run_id or "")
            elif where in self.waiting and event.type != "tool.progress":
                del self.waiting[where]
        elif isinstance(event, RunFinished):
            for key in [k for k in self.waiting if k[0] == event.run_id]:
                del self.waiting[key]
        self.updated_at = time.time()

    async def run_id_known(self, timeout: float) -> str | None:
        if self.run_id is None:
            try:
                await asyncio.wait_for(self._known.wait(), timeout)
            except TimeoutError:
                return None
        return self.run_id


class AgentRuns:
    """Every agent run of this server, by id; the asyncio tasks that carry them are kept here."""

    def __init__(self, book: TaskBook | None = None) -> None:
        self.book = book if book is not None else TaskBook(None)
        self._runs: dict[str, AgentRun] = {}
        self._notes: set[asyncio.Task[None]] = set()  # "the agent stopped waiting", on their way
        self.on_change: Callable[[], Awaitable[None]] | None = None  # a run started or ended

    async def _changed(self) -> None:
        if self.on_change is not None:
            try:
                await self.on_change()
            except Exception:  # an announcement is a courtesy; the run goes on without it
                log.debug("announcing a run's change failed", exc_info=True)

    def get(self, run_id: str) -> AgentRun | None:
        return self._runs.get(run_id)

    def begin(self, tool: str, *, task: bool = False) -> AgentRun:
        run = AgentRun(id=str(uuid.uuid4()), tool=tool, is_task=task)
        if task:  # written down, to outlive this server
            run.on_known = lambda known: self.book.note(known.id, known.run_id or "", known.tool, known.created_at)
        self._runs[run.id] = run
        return run

    def carry(self, run: AgentRun, work: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run `work` for `run` in a task of its own: cancelling whoever awaits it does not stop it."""

        async def carried() -> Any:
            await self._changed()
            try:
                run.result = await work
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # kept for `tasks/get` ("failed"), then raised to the awaiter
                run.error = exc
                raise
            finally:
                run.waiting.clear()
                run.updated_at = time.time()
                if not run.is_task:
                    self._runs.pop(run.id, None)  # its request had the result, or gave up on it
            await self._changed()
            return run.result

        run._loop, run._owner = asyncio.get_running_loop(), threading.get_ident()
        run.task = asyncio.create_task(carried(), name=f"seqdesk agent run {run.id}")
        run.task.add_done_callback(_retrieved)
        return run.task

    def left(self, run: AgentRun, note: Left) -> None:
        """The request that waited for `run` gave up while the run goes on: `note` tells its record
        (once its id is known), in a task of its own since the request's is being cancelled."""

        async def tell() -> None:
            run_id = await run.run_id_known(5.0)
            if run_id is None or run.task is None or run.task.done():
                return
            try:
                await note(run_id)
            except SeqDeskError as exc:  # the app went away: the run's record is out of reach
                log.info("run %s: the agent stopped waiting, but its record could not be told: %s", run_id, exc)

        task = asyncio.create_task(tell(), name=f"seqdesk agent left {run.id}")
        self._notes.add(task)
        task.add_done_callback(self._notes.discard)

    async def cancel(self, run: AgentRun, stop: Stop) -> None:
        """The agent cancels its run: the run stops, recorded as the agent cancelling it."""
        if run.task is None or run.task.done():
            return
        run.cancelled = True
        run_id = await run.run_id_known(5.0)
        try:
            if run_id is not None and await stop(run_id, CANCELLED):
                return
        except SeqDeskError as exc:  # the app went away: its run is out of reach, the wait here is not
            log.info("the agent cancelled run %s but it could not be stopped: %s", run_id, exc)
        run.task.cancel()  # not started yet (or out of reach): nothing to stop in the engine

    @property
    def going(self) -> list[AgentRun]:
        return [r for r in self._runs.values() if r.task is not None and not r.task.done()]

    async def settle(self, *, someone_answers: bool) -> None:
        """The server ends. Runs someone else can still answer are waited for; the rest are cancelled
        (their engine call then stops them as "the agent stopped waiting")."""
        if self._notes:  # the agent stopped waiting: the records are told before anything ends
            await asyncio.gather(*self._notes, return_exceptions=True)
        going = self.going
        if not going:
            return
        tasks = [r.task for r in going if r.task is not None]
        if someone_answers:
            log.warning("the agent left; %d run(s) go on until they end (a person may still answer in SeqDesk)",
                        len(going))
        else:
            for task in tasks:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _retrieved(task: asyncio.Task[Any]) -> None:
    """A run whose request gave up ends unheard: its end is in its record, not an unretrieved error."""
    if not task.cancelled() and task.exception() is not None:
        log.info("an agent's run ended with %r after its request gave up", task.exception())


def progress_words(event: Event) -> str | None:
    """What an event says to the agent (None: nothing worth a progress message)."""
    if isinstance(event, ToolWaiting):
        return (f"'{event.tool_name}' waits for a person: approve or answer it in SeqDesk "
                f"(interaction {event.interaction_id})")
    if isinstance(event, ToolProgress):
        of = f" of {event.total:g}" if event.total else ""
        return f"'{event.tool_name}' {event.progress:g}{of}" + (f": {event.message}" if event.message else "")
    if type(event) is GroupFinished:
        return f"group '{event.group_name}' {event.status}"
    return None
