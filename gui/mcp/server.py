"""`seqdesk mcp`: SeqDesk's operations as MCP tools, so an AI agent can write and run sequences.

The agent writes; a person approves. A run an agent starts waits for its approvals and answers in the
inbox like any other run: this server never answers them itself. A failed save comes back as one
error listing every problem with its place and code (`groups[1].tools[0].as: … (undeclared-slot)`),
so the agent can fix its sequence in a single retry instead of one mistake at a time.

The engine comes from a factory, opened on first use, as `Operations` (the one door): local stores when
no app holds the data folder, the running app's HTTP API when one does (so the person sees the
agent's runs and answers their approvals in the app), or an in-memory engine in tests.

A run belongs to the server, not to the request that started it (`gui.mcp.agent_runs`): a client
that gives up (its request cancelled or timed out, its connection gone) leaves the run going, since
the person may still answer, and the run's record says when the agent stopped waiting; only the
agent's `tasks/cancel` stops it. A client that declares the
Tasks extension gets a task to poll (`gui.mcp.tasks`); one that does not hears progress at least
every `HEARTBEAT` seconds while the run goes on, so a timeout that progress resets never fires.
When the app went away, every tool says so in one sentence.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any

from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp_types import (
    CallToolResult,
    EmptyResult,
    GetPromptRequestParams,
    SetLevelRequestParams,
    TextContent,
    ToolAnnotations,
)
from mcp_types.jsonrpc import INVALID_PARAMS
from pydantic import Field, WithJsonSchema

import gui
from gui.core.causes import EndCause
from gui.core.door import Operations, WhenCallError, summary
from gui.core.errors import SeqDeskError
from gui.core.events import Event
from gui.core.runs import RunRecord
from gui.core.sequences import DslError, Problem, RunArgsError
from gui.core.tools import short_list
from gui.mcp.agent_runs import AgentRun, AgentRuns, progress_words
from gui.mcp.completion import serve_completion
from gui.mcp.resources import announce, serve_resources
from gui.mcp.server_schemas import GROUPS_SCHEMA, DeletedOut, HelpText, RunOut, SavedOut, SequenceList, ToolsOut
from gui.mcp.tasks import CURRENT, TasksExtension

EngineFactory = Callable[[], Awaitable[Operations]]
FAILED_RUN = frozenset({"failed", "stopped", "interrupted"})
# A run this server must stop because its agent left and nobody else can answer (see
# `AgentRuns.settle`): the record says the agent stopped waiting, never that the person stopped it.
GAVE_UP: EndCause = "agent_gave_up"
HEARTBEAT = 10.0  # seconds between progress notifications while a run goes on (clients reset at 60 s)
HEARTBEAT_ENV = "SEQDESK_MCP_HEARTBEAT"  # another interval, in seconds (0.05 to 60): for tests of clients


def heartbeat_from(env: Mapping[str, str]) -> float:
    try:
        return min(max(float(env.get(HEARTBEAT_ENV, HEARTBEAT)), 0.05), 60.0)
    except ValueError:
        return HEARTBEAT
SEE_HELP = "Call seq_help first: it explains the sequence format with an example you can copy."
INSTRUCTIONS = ("SeqDesk runs tool sequences: groups run one after another, the tools of a group at the same "
                "time. " + SEE_HELP + " Steps that need approval wait until a person answers in SeqDesk.")

_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_DELETE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
_RUN = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)

Name = Annotated[str, Field(description="the name of a saved sequence")]
Target = Annotated[str, Field(description="a group's or a sequence's name")]
Args = Annotated[dict[str, Any] | None, Field(description='the inputs, such as {"host": "node-a"}')]


class _Once:
    """Opens the operations on first use, once, even when several calls arrive together."""

    def __init__(self, factory: EngineFactory) -> None:
        self._factory = factory
        self._ops: Operations | None = None
        self._lock = asyncio.Lock()

    async def __call__(self) -> Operations:
        if self._ops is None:
            async with self._lock:
                if self._ops is None:
                    self._ops = await self._factory()
        return self._ops


def ok(data: Any, *, error: bool = False) -> CallToolResult:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2)
    structured = data if isinstance(data, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured,
                          is_error=error)


def failed(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def problems_text(problems: list[Problem], what: str = "the sequence was not saved") -> str:
    """Every problem on its own line: where, what to write instead, and the stable code."""
    count = len(problems)
    head = f"{what}: {count} problem{'s' if count != 1 else ''}. Fix all of them, then call seq_create again."
    return "\n".join([head, *(f"- {agent_words(p)}" for p in problems), SEE_HELP])


def agent_words(problem: Problem) -> str:
    """A problem as an agent reads it: where, what, the code; for a tool that is not there, where an
    agent finds the tools (the app's person is told of its own palette instead)."""
    return f"{problem}; seq_tools lists the tools available now" if problem.code == "unknown-tool" else str(problem)


def build_server(open_engine: EngineFactory, *, runs: AgentRuns | None = None,
                 heartbeat: float | None = None) -> MCPServer:
    """The MCP server. `open_engine` gives an `Engine` or `Operations` (the app's, through its HTTP
    API, when the app holds the data folder); it is awaited once, on the first call. `runs` keeps the
    agents' runs (the caller settles them when the server ends)."""
    operations = _Once(open_engine)
    heartbeat = heartbeat if heartbeat is not None else heartbeat_from(os.environ)
    bus = InMemorySubscriptionBus()
    runs = runs if runs is not None else AgentRuns()
    runs.on_change = lambda: announce(bus)  # a run started or ended: the resources list changed
    server = MCPServer("seqdesk", title="SeqDesk", version=gui.__version__, instructions=INSTRUCTIONS,
                       extensions=[TasksExtension(runs, operations, run_result)], subscriptions=bus)

    @server.tool(title="List saved sequences", annotations=_READ,
                 description="List the saved sequences with their groups, inputs and outputs. " + SEE_HELP)
    async def seq_list() -> Annotated[CallToolResult, SequenceList]:
        try:
            return ok({"sequences": await (await operations()).list_sequences()})
        except SeqDeskError as exc:
            return failed(str(exc))

    @server.tool(title="How to write a sequence", annotations=_READ,
                 description="The sequence format, its common mistakes, a complete example, and the tools "
                             "available now. Read it before seq_create.")
    async def seq_help() -> Annotated[CallToolResult, HelpText]:
        try:
            ops = await operations()
        except SeqDeskError as exc:
            return failed(str(exc))
        try:
            tools = short_list(await ops.list_tools())
        except SeqDeskError as exc:  # the help itself never fails
            tools = f"\n(the tools available now cannot be listed: {exc}; seq_tools tries again)\n"
        text = ops.help() + tools
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"help": text})

    @server.tool(title="List the tools a sequence can use", annotations=_READ,
                 description="Every tool a sequence can use now, built in and from MCP servers: its name (write it "
                             'as "tool" in a step), title, description, input schema, result type, whether it asks '
                             "a person first, and its server's state. Servers that are down are listed with why. "
                             + SEE_HELP)
    async def seq_tools(
        search: Annotated[str | None, Field(description="only the tools whose name, title, description or server "
                                                        "contains this text (any case)")] = None,
    ) -> Annotated[CallToolResult, ToolsOut]:
        try:
            listing = await (await operations()).list_tools()
        except SeqDeskError as exc:
            return failed(str(exc))
        return ok(listing.matching(search).to_json() if search else listing.to_json())

    @server.tool(title="Create or replace a sequence", annotations=_WRITE,
                 description="Create or replace a sequence. Give groups (an array) OR file (a path to a JSON "
                             "document), exactly one. Every mistake is listed at once. " + SEE_HELP)
    async def seq_create(
        name: Annotated[str | None, Field(description="the sequence's name (optional with file)")] = None,
        description: Annotated[str, Field(description="what the sequence does")] = "",
        groups: Annotated[list[Any] | str | None, WithJsonSchema(GROUPS_SCHEMA)] = None,
        file: Annotated[str | None, Field(description="path of a JSON file holding the whole sequence")] = None,
    ) -> Annotated[CallToolResult, SavedOut]:
        if isinstance(groups, str):
            try:
                groups = json.loads(groups)
            except json.JSONDecodeError:
                pass  # the validator says what is wrong with it
        try:
            saved = await (await operations()).create_from(name, description, groups, file)
        except DslError as exc:
            return failed(problems_text(exc.errors or exc.problems))
        except SeqDeskError as exc:
            return failed(str(exc))
        await announce(bus)
        return ok({**summary(saved.sequence), "saved": True, "warnings": [agent_words(w) for w in saved.warnings]})

    @server.tool(title="Run a saved sequence", annotations=_RUN,
                 description="Run a saved sequence (its groups in order) and wait for its end; returns the run "
                             "record (an error when the run did not succeed). Steps that need approval wait for a "
                             "person in SeqDesk. " + SEE_HELP)
    async def seq_run(name: Name, ctx: Context, args: Args = None) -> Annotated[CallToolResult, RunOut]:
        try:
            ops = await operations()
            saved = await ops.list_sequences()
        except SeqDeskError as exc:
            return failed(str(exc))
        if name not in {s["name"] for s in saved}:
            group = any(name in s.get("groups", []) for s in saved)
            hint = " (to run one group on its own, use seq_call)" if group else ""
            return failed(f"there is no saved sequence named '{name}'{hint}; seq_list shows them")
        return await _call(ops, runs, "seq_run", name, args or {}, ctx, heartbeat)

    @server.tool(title="Call a group or sequence", annotations=_RUN,
                 description="Call one group, or a whole sequence, by name with args; waits for the end and "
                             "returns the run record (an error when the run did not succeed). " + SEE_HELP)
    async def seq_call(name: Target, ctx: Context, args: Args = None) -> Annotated[CallToolResult, RunOut]:
        try:
            ops = await operations()
        except SeqDeskError as exc:
            return failed(str(exc))
        return await _call(ops, runs, "seq_call", name, args or {}, ctx, heartbeat)

    @server.tool(title="Call when a condition holds", annotations=_RUN,
                 description="Call a group or sequence only when a condition over args holds, such as "
                             '"$args.n > 3". Returns the run record, or called=false. ' + SEE_HELP)
    async def seq_when_call(name: Target, when: Annotated[str, Field(description='a condition: "$args.n > 3"')],
                            ctx: Context, args: Args = None) -> Annotated[CallToolResult, RunOut]:
        try:
            ops = await operations()
        except SeqDeskError as exc:
            return failed(str(exc))
        return await _call(ops, runs, "seq_when_call", name, args or {}, ctx, heartbeat, when=when)

    @server.tool(title="Resume a run", annotations=_RUN,
                 description="Resume a failed, interrupted or stopped run by its run_id: the groups that "
                             "succeeded are kept (not run again), the rest runs, asking a person again for "
                             "its approvals; waits for the end and returns the new run's record (an error "
                             "when it did not succeed). " + SEE_HELP)
    async def seq_resume(run_id: Annotated[str, Field(description="the run to resume, from a run record")],
                         ctx: Context) -> Annotated[CallToolResult, RunOut]:
        try:
            ops = await operations()
        except SeqDeskError as exc:
            return failed(str(exc))
        return await _resume(ops, runs, run_id, ctx, heartbeat)

    @server.tool(title="Delete a sequence", annotations=_DELETE,
                 description="Delete a saved sequence by name. " + SEE_HELP)
    async def seq_delete(name: Name) -> Annotated[CallToolResult, DeletedOut]:
        try:
            deleted = await (await operations()).delete(name)
        except SeqDeskError as exc:
            return failed(str(exc))
        if not deleted:
            return failed(f"there is no saved sequence named '{name}'; seq_list shows them")
        await announce(bus)
        return ok({"deleted": name})

    serve_resources(server, operations)
    serve_completion(server, operations)
    _serve_log_level(server)
    _refuse_unknown_prompts(server)
    return server


def _refuse_unknown_prompts(server: MCPServer) -> None:
    """`prompts/get` of a prompt that does not exist is invalid params (-32602) with a sentence: the
    SDK's own answer is an error without a JSON-RPC code (0), or an internal error under 2026-07-28."""
    sdk = server._lowlevel_server._request_handlers["prompts/get"].handler

    async def get_prompt(ctx: ServerRequestContext[Any, Any], params: GetPromptRequestParams) -> Any:
        known = {p.name for p in await server.list_prompts()}
        if params.name not in known:
            raise MCPError(code=INVALID_PARAMS, message=f"there is no prompt named '{params.name}' (prompts/list "
                                                        "shows the prompts this server serves)")
        return await sdk(ctx, params)

    server._lowlevel_server.add_request_handler("prompts/get", GetPromptRequestParams, get_prompt)


def _serve_log_level(server: MCPServer) -> None:
    """`logging/setLevel` (legacy protocol; 2026-07-28 carries the level per request): accepted and
    kept. The server sends no log messages of its own, so every level is honoured by sending none."""
    levels: dict[str, str] = {}

    async def set_level(ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
        levels["level"] = params.level
        return EmptyResult()

    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


async def _carried(ops: Operations, runs: AgentRuns, tool: str, ctx: Context, heartbeat: float,
                   work: Callable[[Callable[[Event], None]], Awaitable[Any]]) -> Any:
    """`work(on_event)` to its end, in a task the request does not own: the request's cancel (its
    client gave up) leaves the run going, and its record says the agent stopped waiting. Inside a
    task-augmented call the task is the call's own."""
    current = CURRENT.get()
    if current is not None:  # a task has no progress of its own: `tasks/get` says where it is
        return await work(current.on_event)
    run = runs.begin(tool)
    progress = _Progress(ctx, run, heartbeat)

    def on_event(event: Event) -> None:
        run.on_event(event)
        progress.on_event(event)

    async with progress:
        carried = runs.carry(run, work(on_event))
        try:
            return await asyncio.shield(carried)
        except asyncio.CancelledError:
            if not carried.done():  # the request gave up, not the run
                runs.left(run, ops.agent_stopped_waiting)
            raise


async def _call(ops: Operations, runs: AgentRuns, tool: str, name: str, args: dict[str, Any], ctx: Context,
                heartbeat: float, when: str | None = None) -> CallToolResult:
    """Run to the end while telling the agent what happens; the agent giving up leaves the run going."""
    try:
        if when is None:
            record: RunRecord | None = await _carried(
                ops, runs, tool, ctx, heartbeat, lambda on_event: ops.call(name, args, on_event, gave_up=GAVE_UP))
        else:
            record = await _carried(ops, runs, tool, ctx, heartbeat,
                                    lambda on_event: ops.when_call(name, when, args, on_event, gave_up=GAVE_UP))
    except WhenCallError as exc:
        return failed(f"the condition cannot be used: {exc}")
    except LookupError as exc:
        return failed(f"{exc}; seq_list shows them")
    except RunArgsError as exc:
        return failed(f"the run did not start: {exc}")
    except DslError as exc:  # a saved sequence over the size limits
        return failed("the run did not start: " + "; ".join(str(p) for p in exc.errors))
    except SeqDeskError as exc:
        return failed(str(exc))
    if record is None:
        return ok({"called": False, "reason": f"the condition `{when}` is false"})
    return run_result(record)


def run_result(record: RunRecord) -> CallToolResult:
    """A run's end as the tool's result: a run that did not succeed is an error the agent must notice
    (the record still says why)."""
    return ok(record.to_summary_json(), error=record.status in FAILED_RUN)


async def _resume(ops: Operations, runs: AgentRuns, run_id: str, ctx: Context, heartbeat: float) -> CallToolResult:
    """Resume to the end, as `_call` runs; a refusal is the app's one sentence."""
    try:
        record = await _carried(ops, runs, "seq_resume", ctx, heartbeat,
                                lambda on_event: ops.call_resume(run_id, on_event, gave_up=GAVE_UP))
    except LookupError:
        return failed(f"there is no run {run_id}")
    except SeqDeskError as exc:  # ResumeRefused among them: it says why
        return failed(f"the run was not resumed: {exc}")
    return run_result(record)


class _Progress:
    """Tells the agent what its run is doing (e.g. waiting for approval), if it asked for progress;
    says it again every `heartbeat` seconds while nothing new happens (a person takes their time)."""

    def __init__(self, ctx: Context, run: AgentRun, heartbeat: float) -> None:
        self._ctx = ctx
        self._run = run
        self._heartbeat = heartbeat
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._owner = threading.get_ident()

    def on_event(self, event: Event) -> None:
        message = progress_words(event)
        if message is None or self._loop is None:
            return
        if threading.get_ident() == self._owner:
            self._queue.put_nowait(message)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, message)

    async def __aenter__(self) -> _Progress:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._forward())
        return self

    async def _forward(self) -> None:
        step = 0
        while True:
            try:
                message = await asyncio.wait_for(self._queue.get(), self._heartbeat)
                self._run.message = message
            except TimeoutError:
                message = self._still()
            step += 1
            try:
                await self._ctx.report_progress(step, None, message)
            except Exception:  # progress is a courtesy; the run goes on without it
                return

    def _still(self) -> str:
        waiting = list(self._run.waiting.values())
        if waiting:
            return "; ".join(f"'{w.tool_name}' still waits for a person: approve or answer it in SeqDesk "
                             f"(interaction {w.interaction_id})" for w in waiting)
        return "the run goes on" + (f" (last: {self._run.message})" if self._run.message else "")

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=1.0)  # a send to a client that left may not end
