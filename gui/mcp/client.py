"""A connection to one MCP server: its session kept open, its tools in the registry while it lives.

The session lives in the connection's own task, because the SDK's scopes must be left by the task
that entered them; runs send their calls over it from their own tasks, so a run that stops cancels
its call (the SDK then tells the server). When the server dies its tools leave the registry at once,
so a group's `missing` rule decides instead of a hang; the state turns `down` with what went wrong
(including the last lines the server wrote to stderr) and the connection tries again, waiting 1 s,
2 s, 4 s … up to 30 s. A server at a web address that refuses SeqDesk (HTTP 401 or 403) is not
tried again: trying cannot help until the person signs in (`gui.mcp.auth`) or changes its headers,
so its state says it needs a sign-in, and `retry_now()` tries once more. Whichever request was
refused (listing tools, a call asking for more scopes), its `WWW-Authenticate` is kept
(`challenge`), so the sign-in answers that refusal; a step-up a sign-in answered is not offered again.
A call refused for want of a scope (403 `insufficient_scope`) does not fail its step: the step says
it waits for the person to sign in, the connection is down needing a sign-in (the server's row offers
it), and the call is made again once connected: once per scope asked for.

Over the open session go a run's tool calls, a prompt with its arguments filled in (a text-template
step) and a resource read (`mcp_resource`); their failures are `ToolError`s a person can read. What
the server sends back while a call runs is tied to that call: a request for input
(`elicitation/create`) goes from the SDK straight to `gui.mcp.elicit` (its callback, given at connect),
which answers it with the call's elicitation handler (`gui.mcp.in_flight` keeps the calls); its
progress and log messages go to the call's tool context (`gui.mcp.notices`). A tool that runs as a
task is followed to its end within the call (`gui.mcp.task_call` for 2025-11-25 servers,
`gui.mcp.task_extension` for the 2026-07-28 extension); a call answered -32042 asks the person to
open the server's pages first, then is made once more. A server's list
changes are heard in both protocols (`gui.mcp.listen` opens the 2026-07-28 subscription); its
prompts are steps too (`gui.mcp.prompts`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx2
from mcp import Client, InputRequiredRoundsExceededError, MCPError, StdioServerParameters, UrlElicitationRequiredError
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import (
    CONNECTION_CLOSED,
    URL_ELICITATION_REQUIRED,
    CallToolResult,
    ElicitResult,
    GetPromptResult,
    Implementation,
    LoggingMessageNotificationParams,
    PromptListChangedNotification,
    ReadResourceResult,
    ToolListChangedNotification,
)
from pydantic import ValidationError

import gui
from gui.core.asks import ElicitationHandler
from gui.core.errors import Refused, ToolError
from gui.core.tools import Registry, Tool, ToolContext
from gui.mcp.auth import SignInNeeded, StoredTokens, connection_auth
from gui.mcp.config import McpServerConfig
from gui.mcp.elicit import ServerForms, answer_form
from gui.mcp.in_flight import Call, InFlight
from gui.mcp.listen import follow_changes
from gui.mcp.notices import call_error_words, deliver_log, progress_reporter
from gui.mcp.prompts import PROMPT_MARK, McpPromptTool, list_prompts
from gui.mcp.refusal import Challenge, Refusal, caused_by
from gui.mcp.secrets import MemorySecrets, SecretStore
from gui.mcp.stderr import StderrLog
from gui.mcp.task_call import call_as_task, offers_tasks, runs_as_task, task_reporter
from gui.mcp.task_extension import CURRENT_TASK_HOOKS, TaskCallHooks, TasksExtension, offers_task_extension
from gui.mcp.tool import McpTool
from gui.mcp.watch import watched

log = logging.getLogger(__name__)

ConnectionStatus = Literal["connecting", "connected", "down", "disabled"]
CLIENT_INFO = Implementation(name="seqdesk", version=gui.__version__)


@dataclass(frozen=True)
class ConnectionState:
    """What the settings page shows for one server."""

    name: str
    status: ConnectionStatus
    last_error: str | None = None
    tools: tuple[str, ...] = ()
    protocol: str | None = None
    retry_in: float | None = None  # seconds until the next attempt, while down
    since: float = 0.0
    needs_sign_in: bool = False  # down because the server refused SeqDesk (401/403): not retried


class _StepUpNeeded(Refused):
    """A call was refused for want of a scope a sign-in can give (403 `insufficient_scope`)."""

    def __init__(self, challenge: Challenge) -> None:
        super().__init__(challenge.scope)
        self.challenge = challenge


class McpConnection:
    """One server's session, kept open (reconnecting while it is wanted), and what goes over it."""

    def __init__(self, config: McpServerConfig, registry: Registry, elicitation_handler: ElicitationHandler, *,
                 backoff: tuple[float, float] = (1.0, 30.0), connect_timeout: float = 30.0,
                 on_change: Callable[[ConnectionState], None] | None = None,
                 secrets: SecretStore | None = None) -> None:
        self.config = config
        self.secrets = secrets if secrets is not None else MemorySecrets()
        self.registry = registry
        self.handler = elicitation_handler
        self._in_flight = InFlight()  # the calls over this connection: a form the server asks is tied to one
        # the SDK's elicitation callback: a form goes from the server straight to its answer, not through here
        self._forms = ServerForms(config.name, elicitation_handler, self._in_flight)
        self.backoff = backoff
        self.connect_timeout = connect_timeout
        self._on_change = on_change
        self._status: ConnectionStatus = "disabled" if not config.enabled else "connecting"
        self._last_error: str | None = None
        self._retry_in: float | None = None
        self._since = time.time()
        self._tools: tuple[str, ...] = ()
        self._protocol: str | None = None
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._refresh = False
        self._ended: asyncio.Event | None = None
        self._stderr: StderrLog | None = None
        self._task_support: dict[str, str | None] = {}  # a tool's `execution.taskSupport`, as listed
        self._changed = asyncio.Event()
        self._refusal = Refusal(str(config.url) if config.url is not None else None)
        self._attempts = 0  # connection attempts made so far
        self._retry = asyncio.Event()

    # -- state ---------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.config.name

    @property
    def state(self) -> ConnectionState:
        return ConnectionState(name=self.name, status=self._status, last_error=self._last_error, tools=self._tools,
                               protocol=self._protocol, retry_in=self._retry_in, since=self._since,
                               needs_sign_in=self._refusal.status is not None and self._status == "down")

    def _set(self, status: ConnectionStatus, *, retry_in: float | None = None) -> None:
        self._status, self._retry_in, self._since = status, retry_in, time.time()
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        if self._on_change is not None:
            try:
                self._on_change(self.state)
            except Exception:  # a listener's bug must not stop the connection
                log.exception("MCP state listener failed")

    async def wait_for(self, *statuses: ConnectionStatus, timeout: float = 30.0) -> ConnectionState:
        """Wait until the state is one of `statuses`; TimeoutError after `timeout` seconds."""
        async with asyncio.timeout(timeout):
            while self._status not in statuses:
                await self._changed.wait()
        return self.state

    # -- lifecycle -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Start connecting in the background; returns at once."""
        if not self.config.enabled:
            self._set("disabled")
            return
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"mcp {self.name}")

    def withdraw(self) -> None:
        """Begin stopping without waiting: its tools leave the registry now and it never reconnects.
        `stop()` then closes the session; a connection withdrawn registers no tools again, so another
        connection of the same name can start while this one is still closing."""
        self._stopping = True
        self._stop.set()
        self._wake.set()
        self._unregister()

    async def stop(self, timeout: float = 10.0) -> None:
        """Close the session (the server process ends with it) and take the tools away.

        Bounded: the SDK closes stdin, then kills the server's process tree after its grace periods
        (about 4 s for a server that ignores both); only a close that takes longer than `timeout` is
        cancelled, and then waited for `timeout` more."""
        self.withdraw()
        task, self._task = self._task, None
        if task is not None:
            if self._client is None:  # still connecting: nothing to close gracefully
                task.cancel()
            await asyncio.wait({task}, timeout=timeout)
            if not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=timeout)
        self._unregister()
        self._last_error = None
        self._set("disabled")

    def retry_now(self) -> None:
        """Try to connect now (after a sign-in, or when the person asks), instead of waiting."""
        self._retry.set()

    @property
    def challenge(self) -> Challenge | None:
        """How the server last refused SeqDesk (any request: listing tools, a call), when it said how
        to get in: the sign-in the person starts answers it (`SignIns.start(challenge=…)`). None
        while nothing is refused."""
        return self._refusal.challenge

    def sign_in_wanted(self) -> Challenge | None:
        """The refusal a sign-in would answer, unless a sign-in answered that one already: a server
        that asks again for scopes it was just given is not offered the same sign-in again (one try
        per scope), and says so in `last_error`."""
        return self._refusal.wanted()

    def signed_in(self) -> None:
        """A sign-in answered the current refusal: connect again now."""
        self._refusal.signed_in(self._attempts)
        self.retry_now()

    def refresh_tools(self) -> None:
        """List the tools again (the server said its list changed)."""
        self._refresh = True
        self._wake.set()

    async def _run(self) -> None:
        delay = self.backoff[0]
        refreshed = False  # a refused token was refreshed once since the last good connection
        while not self._stopping:
            self._attempts += 1
            self._set("connecting")
            try:
                error, was_connected = await self._session()
            finally:
                self._close_stderr()
            self._unregister()
            if self._stopping:
                break
            if was_connected:
                delay, refreshed = self.backoff[0], False
            if (self._refusal.status is not None and not refreshed and not self._refusal.for_scope()
                    and StoredTokens(self.secrets, self.name).expire()):
                refreshed = True
                log.info("MCP server %s refused its token: refreshing it", self.name)
                self._refusal.status = None
                continue  # the next attempt refreshes the token first
            self._last_error = error
            log.warning("MCP server %s is down: %s", self.name, error)
            self._retry.clear()
            if self._refusal.status is not None:  # trying again cannot help until the person acts
                self._set("down")
                await self._wait_retry(None)
                delay = self.backoff[0]
                continue
            self._set("down", retry_in=delay)
            await self._wait_retry(delay)
            delay = min(delay * 2, self.backoff[1])

    async def _wait_retry(self, delay: float | None) -> None:
        stop = asyncio.ensure_future(self._stop.wait())
        retry = asyncio.ensure_future(self._retry.wait())
        try:
            await asyncio.wait({stop, retry}, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            retry.cancel()

    async def _session(self) -> tuple[str, bool]:
        connected = False
        self._refusal.status = None
        ended = self._ended = asyncio.Event()
        if self.config.transport == "stdio":
            self._stderr = StderrLog()
        try:
            with anyio.CancelScope() as scope:
                scope.deadline = anyio.current_time() + self.connect_timeout
                async with self._open(ended) as client:
                    await self._load_tools(client)
                    if self._stopping:  # withdrawn while connecting: close it again at once
                        return "", connected
                    if ended.is_set():  # it went away while its tools were listed
                        return self._with_stderr("the server closed the connection (it exited or crashed)"), connected
                    scope.deadline = math.inf
                    self._client, connected = client, True
                    self._protocol = client.protocol_version
                    self._last_error = None
                    self._set("connected")
                    follower = asyncio.create_task(follow_changes(client, self._changed_list, server=self.name))
                    try:
                        await self._serve(client, ended)
                    finally:
                        follower.cancel()
                        await asyncio.gather(follower, return_exceptions=True)
            if scope.cancelled_caught:
                return self._with_stderr(f"no answer within {self.connect_timeout:g} s"), connected
        except Exception as exc:  # every failure of a server is a state, never a crash of the app
            if self._refusal.status is not None or caused_by(exc, SignInNeeded):
                self._refusal.sign_in_needed()
                return self._refusal.words(), connected
            return self._with_stderr(describe(exc)), connected
        finally:
            self._client = None
        if self._refusal.status is not None:  # it took the token back during the session (a call was refused)
            return self._refusal.words(), connected
        return self._with_stderr("the server closed the connection (it exited or crashed)"), connected

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _serve(self, client: Client, ended: asyncio.Event) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping or ended.is_set():
                return
            if self._refresh:
                self._refresh = False
                await self._load_tools(client)

    def _lost(self, ended: asyncio.Event | None) -> None:
        """The server is gone: its tools leave now, before anybody else calls them; the loop reconnects."""
        if ended is None or ended.is_set():
            return
        ended.set()
        self._client = None
        self._unregister()
        self._wake.set()

    @asynccontextmanager
    async def _open(self, ended: asyncio.Event) -> AsyncIterator[Client]:
        def on_end() -> None:
            self._lost(ended)

        async with AsyncExitStack() as stack:
            inner: AbstractAsyncContextManager[Any]
            if self.config.transport == "http":
                opening = getattr(self.secrets, "open", None)
                if callable(opening):  # the first use chooses keyring or file: not on the event loop
                    await asyncio.to_thread(opening)
                auth = connection_auth(self.secrets, self.config, self._refusal.sign_in_needed)
                http = httpx2.AsyncClient(headers=self.config.header_values(), auth=auth,
                                          timeout=httpx2.Timeout(30.0, read=300.0),
                                          event_hooks={"response": [self._heard]})
                stack.push_async_callback(http.aclose)
                inner = streamable_http_client(str(self.config.url), http_client=http)
            else:
                params = StdioServerParameters(command=str(self.config.command), args=list(self.config.args),
                                               env=dict(self.config.env) or None, cwd=self.config.cwd)
                inner = stdio_client(params, errlog=self._stderr.file if self._stderr is not None else sys.stderr)
            client = Client(watched(inner, on_end), mode=self.config.protocol, elicitation_callback=self._forms.answer,
                            message_handler=self._on_message, logging_callback=self._on_log, log_level="info",
                            client_info=CLIENT_INFO, cache=None, extensions=[TasksExtension()])
            yield await stack.enter_async_context(client)

    async def _heard(self, response: httpx2.Response) -> None:
        self._refusal.heard(response)  # (httpx's response hooks are awaited)

    async def _load_tools(self, client: Client) -> None:
        remote, cursor = [], None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor)
            remote.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        prompts = await list_prompts(client, self.name)
        ended = self._ended
        if self._stopping or (ended is not None and ended.is_set()):
            return  # withdrawn, or the server went away, while listing: its tools must not come back
        self._task_support = {t.name: t.execution.task_support if t.execution is not None else None for t in remote}
        tools: list[Tool] = [McpTool(self, t, trusted=self.config.trusted) for t in remote]
        tools += [McpPromptTool(self, p) for p in prompts]
        names = tuple(sorted(t.name for t in tools))
        for gone in set(self._tools) - set(names):
            self.registry.remove(gone)
        for tool in tools:
            self.registry.add(tool)
        self._tools = names

    def _unregister(self) -> None:
        if self._tools:
            self.registry.remove_prefix(f"{self.name}.")
            self._tools = ()

    def _with_stderr(self, message: str) -> str:
        tail = self._stderr.tail() if self._stderr is not None else ""
        return f"{message}; it last wrote: {tail}" if tail else message

    def _changed_list(self, _what: str) -> None:
        self.refresh_tools()  # tools and prompts are listed together

    # -- calls over the session ----------------------------------------------------------------
    async def call_tool(self, remote_name: str, args: dict[str, Any], ctx: ToolContext) -> CallToolResult:
        """Calls the tool over the open session. A call refused for want of a scope (a step-up) waits
        for the person to sign in for it, then is made again: once per scope asked for."""
        client = self._connected()
        call, token = self._in_flight.start(ctx)
        try:
            while True:
                try:
                    return await self._call(client, remote_name, args, call)
                except _StepUpNeeded as need:
                    client = await self._signed_in_for(remote_name, need.challenge, call)
        finally:
            self._in_flight.end(call, token)

    async def _call(self, client: Client, remote_name: str, args: dict[str, Any], call: Call) -> CallToolResult:
        try:
            try:
                return await self._call_once(client, remote_name, args, call)
            except MCPError as exc:
                if exc.code != URL_ELICITATION_REQUIRED or self._refusal.status is not None:
                    raise
                await self._open_pages_first(remote_name, exc, call)
            return await self._call_once(client, remote_name, args, call)  # once: a second -32042 is its error
        except MCPError as exc:
            if self._refusal.status is not None:  # the server refused the token mid-session: sign in (or refresh) again
                self._lost(self._ended)
                challenge = self.sign_in_wanted()
                if challenge is not None and challenge.step_up:
                    raise _StepUpNeeded(challenge) from None
                raise ToolError(f"{self.name}.{remote_name}: {self._refusal.words()}") from None
            if exc.code == CONNECTION_CLOSED:
                self._lost(self._ended)
                raise ToolError(self._with_stderr(f"the MCP server '{self.name}' stopped during the call "
                                                  "(it exited or crashed)")) from None
            raise ToolError(f"{self.name}.{remote_name}: {call_error_words(self.name, exc.message)}") from None
        except InputRequiredRoundsExceededError:
            raise ToolError(f"{self.name}.{remote_name}: the server kept asking for input without finishing") from None
        except httpx2.TransportError as exc:
            raise self._unreachable(exc) from None

    async def _signed_in_for(self, remote_name: str, challenge: Challenge, call: Call) -> Client:
        """The call needs a scope the token lacks: the step says it waits for the person to sign in
        (the server's row in Settings offers it), then goes on over the connection that sign-in
        opened. ToolError when the connection goes away instead (turned off, removed) or the sign-in
        did not let it in."""
        words = (f"{self.name} needs you to sign in again, for more permissions (scope {challenge.scope}): "
                 "sign in to it in Settings, MCP servers; this step goes on after you do")
        if call.ctx.progress is not None:
            call.ctx.progress(0, None, words)
        if call.ctx.log is not None:
            call.ctx.log("warning", words)
        log.info("MCP server %s: %s.%s waits for a sign-in for the scope %s", self.name, self.name, remote_name,
                 challenge.scope)
        started = self._attempts
        while True:
            changed = self._changed
            if self._stopping:
                raise ToolError(f"{self.name}.{remote_name}: the server was turned off or removed while this step "
                                "waited for you to sign in")
            if self._attempts > started and self._status == "connected" and self._client is not None:
                if call.ctx.progress is not None:  # signed in (or connected again when the person asked)
                    call.ctx.progress(0, None, f"connected to {self.name} again: calling {remote_name} again")
                return self._client
            signed_in_at = self._refusal.answered_at(challenge)
            if signed_in_at is not None and self._attempts > signed_in_at and self._status == "down":
                raise ToolError(f"{self.name}.{remote_name}: {self._last_error or self._refusal.words()}")
            await changed.wait()

    async def _call_once(self, client: Client, remote_name: str, args: dict[str, Any], call: Call) -> CallToolResult:
        support = self._task_support.get(remote_name)
        if runs_as_task(support, offers_tasks(client)):
            return await call_as_task(client.session, remote_name, args, on_status=task_reporter(call.ctx),
                                      on_created=lambda task_id: self._in_flight.by_task.__setitem__(task_id, call))
        if support == "required" and not offers_task_extension(client):
            raise ToolError(f"{self.name}.{remote_name}: the server runs this tool only as a task, and it does "
                            f"not offer task calls over the protocol this connection speaks "
                            f"({client.protocol_version}); set the server's protocol to legacy (2025) and "
                            "connect again")
        hooks = CURRENT_TASK_HOOKS.set(TaskCallHooks(answer=lambda params: self._forms.answer(None, params),
                                                     on_status=task_reporter(call.ctx)))
        try:  # a 2026-07-28 server may answer with a task: `gui.mcp.task_extension` follows it
            return await client.call_tool(remote_name, args, progress_callback=progress_reporter(call.ctx))
        finally:
            CURRENT_TASK_HOOKS.reset(hooks)

    async def _open_pages_first(self, remote_name: str, exc: MCPError, call: Call) -> None:
        """The server answered -32042: the person opens its pages first (each one an inbox item, as a
        page the server asks for during a call); when they did, the call is made once more."""
        try:
            pages = UrlElicitationRequiredError.from_error(exc.error).elicitations
        except (ValueError, ValidationError):
            pages = []
        if not pages:
            raise ToolError(f"{self.name}.{remote_name}: the server wants a page opened first but did not say "
                            "which") from None
        handler = call.ctx.elicitation or self.handler
        for page in pages:
            answer = await answer_form(self.name, page, call.ctx, handler, call.done)
            if not isinstance(answer, ElicitResult) or answer.action != "accept":
                raise ToolError(f"{self.name}.{remote_name}: the server needs the page {page.url} opened first "
                                f"({page.message}), and it was not") from None

    async def get_prompt(self, name: str, args: dict[str, str]) -> GetPromptResult:
        """A prompt of this server with its arguments filled in (a text-template step); ToolError saying why not."""
        client = self._connected()
        try:
            return await client.get_prompt(name, args)
        except MCPError as exc:
            raise ToolError(f"{self.name}.{PROMPT_MARK}{name}: {exc.message}") from None
        except httpx2.TransportError as exc:
            raise self._unreachable(exc) from None

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """A resource of this server by its URI (`mcp_resource`); ToolError saying why not."""
        client = self._connected()
        try:
            return await client.read_resource(uri)
        except MCPError as exc:
            raise ToolError(f"the MCP server '{self.name}' did not give {uri}: {exc.message}") from None
        except httpx2.TransportError as exc:
            raise self._unreachable(exc) from None

    def _connected(self) -> Client:
        client = self._client
        if client is None or self._status != "connected":
            why = f" ({self._last_error})" if self._last_error else ""
            raise ToolError(f"the MCP server '{self.name}' is not connected{why}")
        return client

    def _unreachable(self, exc: BaseException) -> ToolError:
        self._lost(self._ended)
        return ToolError(f"the MCP server '{self.name}' cannot be reached: {describe(exc)}")

    # -- what the server sends while a call runs -----------------------------------------------
    async def _on_log(self, params: LoggingMessageNotificationParams) -> None:
        """A log message goes to the log of the call it belongs to. The protocol does not say which
        call sent it: with one call in flight it is that one's; with several, each of them gets it."""
        deliver_log(self.name, params, [c.ctx for c in self._in_flight.calls])

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification | PromptListChangedNotification):
            self.refresh_tools()
        elif isinstance(message, Exception):
            log.info("MCP server %s: transport error: %s", self.name, message)


def describe(exc: BaseException) -> str:
    """One readable line for a failure, looking inside exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return "the server closed the connection" if exc.code == CONNECTION_CLOSED else exc.message
    if isinstance(exc, FileNotFoundError):
        return f"cannot start it: {exc.strerror or 'no such file'}: {exc.filename or ''}".rstrip(": ")
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
