"""`RemoteEngine`: the door (`gui.core.door.operations.Operations`) over a running app's HTTP API.

When the app holds the data folder (one process per folder), the CLI and `seqdesk mcp` reach it
through this client: runs they start appear in the app, and their approvals wait in its inbox. The
request and response shapes are the API's own pydantic models (`gui.wire.models`). The app says where
it listens in its endpoint file (`gui.second_launch.read_endpoint`), never its token: a caller of an app started with
one gives it as `SEQDESK_TOKEN`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter

from gui.core.asks import (
    Answered,
    Answerer,
    ApprovalRule,
    InboxView,
    InteractionKind,
    InteractionRecord,
    InteractionStatusFilter,
)
from gui.core.causes import CancelReason, EndCause
from gui.core.door import (
    AskState,
    BatchAnswer,
    BatchOutcome,
    EventListener,
    McpServerChange,
    McpServerListing,
    McpServerNotFound,
    McpServerSpec,
    McpServerState,
    McpServerView,
    NotFoundError,
    Page,
    ProgramAsk,
    RunFollower,
    Saved,
    condition_holds,
    document_from,
)
from gui.core.errors import Failed, NotFound, Unavailable
from gui.core.events import RunFinished
from gui.core.runs import HostInfo, RunRecord, RunStatus, Schedule
from gui.core.sequences import Group, Sequence, ValidationResult, check_document, help_text
from gui.core.tools import ServerInfo, ToolListing
from gui.remote.events import AppEvents, event_on
from gui.remote.transport import connect
from gui.wire import ANSWERED_VIA, HostsBody, SavedBody, StartRun, error_in, problem_from, result_from

STOP_SECONDS = 10.0
_RESULT: TypeAdapter[Answered] = TypeAdapter(Answered)


class RemoteEngine:
    """The operations, sent to the app at `url`."""

    def __init__(self, url: str, token: str | None = None, *, client: httpx.AsyncClient | None = None,
                 answered_here: bool = False) -> None:
        self.url = url
        # An app started in the background for a door (`gui.second_launch`): the caller answers its own
        # run's requests, as it would with the engine in its own process; its inbox has them too.
        self._inbox = None if answered_here else url.rstrip("/") + "/inbox"
        self._client = client or connect(url, token)
        self._events = AppEvents(self._client, url)  # the app's event stream: `subscribe`, `call`
        self._stopping: set[asyncio.Future[bool]] = set()  # stops sent for callers that gave up: `close` awaits them

    @property
    def inbox_url(self) -> str | None:
        return self._inbox

    # -- the wire ------------------------------------------------------------------------------
    async def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        try:
            return await self._client.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise Unavailable(f"the SeqDesk app at {self.url} did not answer: {exc}") from None

    async def _request(self, method: str, path: str, *, missing_ok: bool = False, **kw: Any) -> Any:
        """The app's JSON answer (None for 204, or for 404 with `missing_ok`). A refusal raises the
        exception the engine raised in the app, made again by its code (`gui.wire.errors`): DslError
        for an invalid sequence, RunArgsError for args that do not fit, NotFound, Conflict, ..."""
        response = await self._send(method, path, **kw)
        if response.status_code == 204 or (missing_ok and response.status_code == 404):
            return None
        if response.status_code >= 400:
            raise error_in(response.status_code, response.content, f"the app refused: HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise Failed(f"the SeqDesk app at {self.url} gave an answer that is not JSON "
                         f"(HTTP {response.status_code})") from None

    async def _deleted(self, path: str, what: str) -> bool:
        """DELETE `path`: False when the app has no such thing (404), True once it is gone; any other
        refusal raises the app's exception (`what` names the thing in its message)."""
        response = await self._send("DELETE", path)
        if response.status_code == 404:
            return False
        if response.status_code >= 400:
            raise error_in(response.status_code, response.content,
                           f"the app refused to delete {what}: HTTP {response.status_code}")
        return True

    async def _page(self, path: str, params: dict[str, Any], parse: Callable[[Any], Any]) -> Page[Any]:
        response = await self._send("GET", path, params={k: v for k, v in params.items() if v is not None})
        if response.status_code >= 400:
            raise error_in(response.status_code, response.content,
                           f"the app refused {path}: HTTP {response.status_code} {response.text[:200]}")
        items = [parse(item) for item in response.json()]
        return Page(items, int(response.headers.get("x-total-count", len(items))))

    # -- sequences -----------------------------------------------------------------------------
    async def list_sequences(self) -> list[dict[str, Any]]:
        return list(await self._request("GET", "/api/sequences"))

    async def get(self, name: str) -> Sequence | None:
        doc = await self.get_sequence_document(name)
        return check_document(doc).sequence if doc is not None else None

    async def get_sequence_document(self, name: str) -> dict[str, Any] | None:
        return await self._request("GET", f"/api/sequences/{quote(name, safe='')}", missing_ok=True)

    async def resolve(self, name: str) -> tuple[Sequence, Group | None]:
        sequence = await self.get(name)
        if sequence is not None:
            return sequence, None
        for item in await self.list_sequences():  # group names are unique across the saved sequences
            if name in item.get("groups", ()):
                holder = await self.get(str(item.get("name")))
                group = holder.group(name) if holder is not None else None
                if holder is not None and group is not None:
                    return holder, group
        raise NotFoundError(f"no saved sequence or group is named '{name}'")

    async def taken_names(self, replacing: str | None = None) -> set[str]:
        taken: set[str] = set()
        for item in await self.list_sequences():
            if item.get("name") != replacing:
                taken.add(str(item.get("name")))
                taken.update(str(g) for g in item.get("groups", ()))
        return taken

    async def check(self, doc: Any, *, replacing: str | None = None, as_new: bool = False) -> ValidationResult:
        body = await self._request("POST", "/api/check",
                                   json={"document": doc, "replacing": replacing, "as_new": as_new})
        return result_from(body)

    async def create(self, doc: Any, *, as_new: bool = False) -> Saved:
        params = {"as_new": "true"} if as_new else None
        return _saved(await self._request("POST", "/api/sequences", json=doc, params=params))

    async def create_from(self, name: str | None, description: str, groups: Any, file: str | None) -> Saved:
        return await self.create(document_from(name, description, groups, file))

    async def rename(self, old_name: str, doc: Any) -> Saved:
        return _saved(await self._request("PUT", f"/api/sequences/{quote(old_name, safe='')}", json=doc))

    async def delete(self, name: str) -> bool:
        """False when there is no such sequence; an unreachable app is Unavailable, not a no."""
        return await self._deleted(f"/api/sequences/{quote(name, safe='')}", f"'{name}'")

    def help(self) -> str:
        return help_text()

    # -- tools ---------------------------------------------------------------------------------
    async def list_tools(self) -> ToolListing:
        return ToolListing.model_validate(await self._request("GET", "/api/tools"))

    # -- hosts ---------------------------------------------------------------------------------
    async def hosts(self) -> list[HostInfo]:
        """The hosts the app's team knows and their states (none when it runs sequences in its process)."""
        return (await self._hosts()).hosts

    async def host_names(self) -> frozenset[str] | None:
        """The names a step's `on` may give on this app; None when it puts no step on a host (it runs
        sequences in its own process), so a file's host names are not its to check."""
        listed = await self._hosts()
        return frozenset(host.name for host in listed.hosts) if listed.steps_on_hosts else None

    async def _hosts(self) -> HostsBody:
        return HostsBody.model_validate(await self._request("GET", "/api/hosts"))

    async def list_mcp_servers(self) -> McpServerListing:
        """The app's servers as its API shows them (no program arguments, no credential in an address),
        each with its connection as the app's tool listing says it."""
        servers = await self._request("GET", "/api/mcp/servers")
        tools = await self.list_tools()
        states = {s.name: s for s in tools.servers}
        names: dict[str, list[str]] = {}
        for tool in tools.tools:
            if tool.server is not None:
                names.setdefault(tool.server, []).append(tool.name)
        return McpServerListing(servers=[
            McpServerView.model_validate({**item, "state": _server_state(states.get(item.get("name")),
                                                                         names.get(item.get("name"), []))})
            for item in servers])

    async def add_mcp_server(self, spec: McpServerSpec) -> McpServerView:
        body = spec.model_dump(mode="json", exclude_unset=True) | {"name": spec.name}
        if spec.headers:
            body["headers"] = {k: v.get_secret_value() for k, v in spec.headers.items()}
        if spec.oauth_client_secret is not None:
            body["oauth_client_secret"] = spec.oauth_client_secret.get_secret_value()
        await self._request("POST", "/api/mcp/servers", json=body)
        return await self._mcp_server(spec.name)

    async def update_mcp_server(self, name: str, change: McpServerChange) -> McpServerView:
        body = change.model_dump(mode="json", exclude_unset=True)
        if change.headers is not None:
            body["headers"] = {k: v.get_secret_value() if v is not None else None for k, v in change.headers.items()}
        if change.oauth_client_secret is not None:
            body["oauth_client_secret"] = change.oauth_client_secret.get_secret_value()
        await self._request("PATCH", f"/api/mcp/servers/{quote(name, safe='')}", json=body)
        return await self._mcp_server(name)

    async def remove_mcp_server(self, name: str) -> bool:
        try:
            await self._request("DELETE", f"/api/mcp/servers/{quote(name, safe='')}")
        except McpServerNotFound:
            return False
        return True

    async def sign_in_mcp_server(self, name: str, callback: str) -> str | None:
        body = await self._request("POST", f"/api/mcp/servers/{quote(name, safe='')}/sign-in",
                                   json={"callback": callback})
        return body.get("url") if isinstance(body, dict) else None

    async def retry_mcp_server(self, name: str) -> bool:
        body = await self._request("POST", f"/api/mcp/servers/{quote(name, safe='')}/retry", json={})
        return bool(isinstance(body, dict) and body.get("retried"))

    async def _mcp_server(self, name: str) -> McpServerView:
        found = (await self.list_mcp_servers()).get(name)
        if found is None:
            raise McpServerNotFound(f"there is no MCP server named {name!r}")
        return found

    # -- runs ----------------------------------------------------------------------------------
    async def start(self, name: str, args: dict[str, Any] | None = None, *,
                    started_by: str | None = None) -> RunRecord:
        return await self._start(StartRun(sequence=name, args=args or {}))  # the app knows who asks

    async def start_document(self, doc: Any, args: dict[str, Any] | None = None, *,
                             started_by: str | None = None) -> RunRecord:  # the app knows who asks
        return await self._start(StartRun(document=doc, args=args or {}))

    async def resume(self, run_id: str) -> RunRecord:
        return await self._fetch_started(await self._post_resume(run_id))

    async def call_resume(self, run_id: str, on_event: EventListener | None = None, *,
                          gave_up: EndCause = "person") -> RunRecord:
        return await self._wait_for(lambda: self._post_resume(run_id), on_event, gave_up)

    async def _post_resume(self, run_id: str) -> str:
        """The new run's id; ResumeRefused with the app's sentence saying why it cannot be resumed."""
        return str((await self._request("POST", f"/api/runs/{quote(run_id, safe='')}/resume"))["run_id"])

    async def _post_run(self, body: StartRun) -> str:
        return str((await self._request("POST", "/api/runs", json=body.model_dump(exclude_none=True)))["run_id"])

    async def _start(self, body: StartRun) -> RunRecord:
        return await self._fetch_started(await self._post_run(body))

    async def _fetch_started(self, run_id: str) -> RunRecord:
        record = await self.get_run(run_id)
        if record is None:
            raise Failed(f"the app started run {run_id} but does not know it")
        return record

    async def call(self, name: str, args: dict[str, Any] | None = None,
                   on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord:
        return await self._start_and_wait(StartRun(sequence=name, args=args or {}), on_event, gave_up)

    async def call_document(self, doc: Any, args: dict[str, Any] | None = None,
                            on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord:
        return await self._start_and_wait(StartRun(document=doc, args=args or {}), on_event, gave_up)

    async def when_call(self, name: str, when: str, args: dict[str, Any] | None = None,
                        on_event: EventListener | None = None, *,
                        gave_up: EndCause = "person") -> RunRecord | None:
        if not condition_holds(when, args or {}):
            return None
        return await self.call(name, args, on_event, gave_up=gave_up)

    async def stop(self, run_id: str, cause: EndCause = "person") -> bool:
        answer = await self._request("POST", f"/api/runs/{quote(run_id, safe='')}/stop", missing_ok=True,
                                     json={"cause": cause})
        return bool(answer and answer.get("stopped"))

    async def agent_stopped_waiting(self, run_id: str) -> bool:
        answer = await self._request("POST", f"/api/runs/{quote(run_id, safe='')}/agent-left", missing_ok=True)
        return bool(answer and answer.get("noted"))

    async def get_run(self, run_id: str) -> RunRecord | None:
        body = await self._request("GET", f"/api/runs/{quote(run_id, safe='')}", missing_ok=True)
        return RunRecord.model_validate(body) if body is not None else None

    async def find_run(self, run_id: str) -> RunRecord | None:
        """The app resolves a short id; its 409 for an ambiguous one comes back as AmbiguousRunIdError."""
        return await self.get_run(run_id)

    async def list_runs(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return (await self.run_page(limit=limit, offset=offset)).items

    async def run_page(self, *, status: RunStatus | None = None, sequence: str | None = None,
                       started_from: float | None = None, started_to: float | None = None,
                       text: str | None = None, limit: int = 50, offset: int = 0) -> Page[RunRecord]:
        params = {"status": status, "sequence": sequence, "started_from": started_from, "started_to": started_to,
                  "q": text, "limit": limit, "offset": offset}
        return await self._page("/api/runs", params, RunRecord.model_validate)

    async def _start_and_wait(self, body: StartRun, on_event: EventListener | None, gave_up: EndCause) -> RunRecord:
        return await self._wait_for(lambda: self._post_run(body), on_event, gave_up)

    async def _wait_for(self, start: Callable[[], Awaitable[str]], on_event: EventListener | None,
                        gave_up: EndCause = "person") -> RunRecord:
        """Start the run and read the app's events until it ends; the stream is open before the run
        starts, so nothing it does (a request for a person, its very end) can be missed."""
        follower = RunFollower(on_event or (lambda _: None))
        async with self._events.opened() as lines:
            run_id = await start()
            follower.follow(run_id)
            try:
                async for line in lines:
                    event = event_on(line)
                    if event is not None:
                        follower(event)
                        if isinstance(event, RunFinished) and event.run_id == run_id:
                            break
            except asyncio.CancelledError:  # its caller gave up: the app records who
                stopping = asyncio.ensure_future(self.stop(run_id, gave_up))
                self._stopping.add(stopping)
                stopping.add_done_callback(self._stopping.discard)
                await asyncio.shield(stopping)
                raise
        record = await self.get_run(run_id)
        if record is None:
            raise Failed(f"the app lost run {run_id}")
        return record

    # -- interactions --------------------------------------------------------------------------
    async def pending(self, run_id: str | None = None) -> list[InteractionRecord]:
        return (await self.interaction_page(status="pending", run_id=run_id, limit=1000)).items

    async def interaction_page(self, *, status: InteractionStatusFilter | None = None,
                               kind: InteractionKind | None = None, run_id: str | None = None,
                               sequence: str | None = None, tool_name: str | None = None,
                               limit: int = 50, offset: int = 0) -> Page[InteractionRecord]:
        params = {"status": status, "kind": kind, "run_id": run_id, "sequence": sequence, "tool": tool_name,
                  "limit": limit, "offset": offset}
        return await self._page("/api/interactions", params, _interaction)

    async def get_interaction(self, interaction_id: str) -> InteractionRecord | None:
        body = await self._request("GET", f"/api/interactions/{quote(interaction_id, safe='')}", missing_ok=True)
        return _interaction(body) if body is not None else None

    async def respond(self, interaction_id: str, response: Any, by: Answerer | None = None) -> Answered:
        payload = response.model_dump(mode="json") if hasattr(response, "model_dump") else response
        via = {ANSWERED_VIA: by.via} if by is not None else None  # the app records who answered (CLI...)
        body = await self._request("POST", f"/api/interactions/{quote(interaction_id, safe='')}/respond",
                                   json=payload, headers=via)
        return _RESULT.validate_python(body)

    async def cancel_interaction(self, interaction_id: str, reason: CancelReason) -> bool:
        body = await self._request("POST", f"/api/interactions/{quote(interaction_id, safe='')}/cancel",
                                   json={"reason": reason})
        return bool(body.get("cancelled"))

    async def inbox(self, person: str, view: InboxView) -> list[InteractionRecord]:
        """The view of the inbox of whoever this client is to the app (`person` is the app's to know)."""
        return (await self._page("/api/interactions", {"view": view, "limit": 1000}, _interaction)).items

    async def respond_many(self, answers: list[BatchAnswer], by: Answerer | None = None) -> list[BatchOutcome]:
        via = {ANSWERED_VIA: by.via} if by is not None else None
        body = await self._request("POST", "/api/interactions/batch",
                                   json={"answers": [a.model_dump(mode="json") for a in answers]}, headers=via)
        return [BatchOutcome.model_validate(o) for o in body.get("outcomes", [])]

    async def hand_over(self, interaction_id: str, to: str, note: str = "",
                        by: Answerer | None = None) -> InteractionRecord:
        via = {ANSWERED_VIA: by.via} if by is not None else None
        body = await self._request("POST", f"/api/interactions/{quote(interaction_id, safe='')}/hand-over",
                                   json={"to": to, "note": note}, headers=via)
        return _interaction(body)

    # -- a program asking the person -----------------------------------------------------------
    async def ask(self, ask: ProgramAsk) -> AskState:
        return AskState.model_validate(await self._request("POST", "/api/asks", json=ask.model_dump(mode="json")))

    async def ask_state(self, ask_id: str, wait: float = 0.0) -> AskState:
        return AskState.model_validate(await self._request("GET", f"/api/asks/{quote(ask_id, safe='')}",
                                                           params={"wait": wait}))

    async def withdraw_ask(self, ask_id: str) -> AskState:
        return AskState.model_validate(await self._request("DELETE", f"/api/asks/{quote(ask_id, safe='')}"))

    # -- approval rules ------------------------------------------------------------------------
    async def approval_rules(self) -> list[ApprovalRule]:
        body = await self._request("GET", "/api/approval-rules")
        return [ApprovalRule.model_validate({k: v for k, v in item.items() if k not in ("text", "earlier_version")})
                for item in body]

    async def earlier_version_rules(self) -> set[str]:
        body = await self._request("GET", "/api/approval-rules")
        return {item["rule_id"] for item in body if item.get("earlier_version")}

    async def revoke_approval_rule(self, rule_id: str) -> ApprovalRule:
        rule = next((r for r in await self.approval_rules() if r.rule_id == rule_id), None)
        if rule is None:
            raise NotFound(f"there is no approval rule {rule_id!r}")
        await self._request("DELETE", f"/api/approval-rules/{quote(rule_id, safe='')}")
        return rule

    # -- schedules -----------------------------------------------------------------------------
    async def list_schedules(self) -> list[Schedule]:
        return [_schedule(item) for item in await self._request("GET", "/api/schedules")]

    async def create_schedule(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        body = {k: v for k, v in {"sequence": sequence, "args": args, "every": every, "cron": cron}.items()
                if v is not None}
        return _schedule(await self._request("POST", "/api/schedules", json=body))  # ScheduleInvalid by its code

    async def pause_schedule(self, schedule_id: str, paused: bool = True) -> Schedule:
        path = f"/api/schedules/{quote(schedule_id, safe='')}/pause"
        return _schedule(await self._request("POST", path, json={"paused": paused}))

    async def delete_schedule(self, schedule_id: str) -> bool:
        return await self._deleted(f"/api/schedules/{quote(schedule_id, safe='')}", f"schedule {schedule_id}")

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """`listener` hears the app's events from the moment the app has opened their stream (a moment
        after this returns); call the result to stop."""
        return self._events.subscribe(listener)

    async def answers(self, timeout: float = 3.0) -> bool:
        """Whether the app answers at all now (False: it is ending, or its endpoint file is stale)."""
        try:
            response = await self._client.get("/api/health", timeout=timeout)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def close(self) -> None:
        """After the stops still on their way (a caller gave up just before this door closes): the app
        records who stopped those runs, even when the caller's process is about to end."""
        if self._stopping:
            await asyncio.wait(self._stopping, timeout=STOP_SECONDS)
        self._events.close()
        await self._client.aclose()


def _schedule(data: dict[str, Any]) -> Schedule:
    return Schedule.model_validate({k: v for k, v in data.items() if k in Schedule.model_fields})


def _server_state(info: ServerInfo | None, tools: list[str]) -> McpServerState | None:
    """A server's connection from the tool listing (which says neither when it tries again nor
    whether it waits for a sign-in)."""
    if info is None or info.status not in ("connected", "connecting", "down", "disabled"):
        return None
    return McpServerState.model_validate({"status": info.status, "last_error": info.last_error,
                                          "protocol": info.protocol, "tools": sorted(tools)})


def _interaction(data: dict[str, Any]) -> InteractionRecord:
    return InteractionRecord.model_validate({k: v for k, v in data.items() if k != "interaction_id"})


def _saved(data: Any) -> Saved:
    body = SavedBody.model_validate(data)
    result = check_document(body.document)  # the app validated it; this only rebuilds the tree here
    warnings = [problem_from(p, "warning") for p in body.warnings]
    return Saved(result.raise_for_errors(), ValidationResult(errors=[], warnings=warnings,
                                                             sequence=result.sequence, signature=result.signature))
