"""The operations an outside caller (the CLI, the MCP server) needs, wherever the engine lives.

When no app holds the data folder, `LocalOperations` opens the stores itself. When the app is open
on that folder (one process per folder), `RemoteOperations` sends the same operations to the app's
HTTP API: runs started from a terminal or by an agent then appear in the app, and their approvals
wait in the app's inbox. The app publishes where it listens in `seqdesk.endpoint.json` (owner-only),
never its token: a caller of an app started with one gives it too (`SEQDESK_TOKEN`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from gui.core.catalog import document_from, summary
from gui.core.conditions import ConditionEvalError, ConditionSyntaxError, evaluate, parse_condition
from gui.core.engine import Engine, WhenCallError
from gui.core.errors import DslError, Problem
from gui.core.events import Event
from gui.core.help import help_text
from gui.core.records import RunRecord
from gui.core.run_args import RunArgsError

ENDPOINT_FILE = "seqdesk.endpoint.json"
EventCallback = Callable[[Event], None]


class OperationError(Exception):
    """An operation failed for a reason the caller should read (not found, app unreachable, …)."""


class Operations(Protocol):
    async def list(self) -> list[dict[str, Any]]: ...

    def help(self) -> str: ...

    async def create_from(self, name: str | None, description: str, groups: Any,
                          file: str | None) -> tuple[dict[str, Any], list[Problem]]: ...

    async def delete(self, name: str) -> bool: ...

    async def call(self, name: str, args: dict[str, Any], on_event: EventCallback | None = None) -> RunRecord: ...

    async def close(self) -> None: ...


class RunFollower:
    """Passes on the events of the runs it follows and of every run they call through `seq_call`
    (their requests for a person too): a call's caller must see what waits for a person inside it."""

    def __init__(self, on_event: EventCallback) -> None:
        self.on_event = on_event
        self.run_ids: set[str] = set()

    def __call__(self, event: Event) -> None:
        if event.type == "run.started" and event.data.get("parent") in self.run_ids:
            self.run_ids.add(event.run_id or "")
        if event.run_id in self.run_ids:
            self.on_event(event)


async def when_call(ops: Operations, name: str, when: str, args: dict[str, Any],
                    on_event: EventCallback | None = None) -> RunRecord | None:
    try:
        holds = evaluate(parse_condition(when), args)
    except (ConditionSyntaxError, ConditionEvalError) as exc:
        raise WhenCallError(f"condition `{when}`: {getattr(exc, 'message', exc)}") from None
    return await ops.call(name, args, on_event) if holds else None


class LocalOperations:
    """Operations on an engine in this process."""

    def __init__(self, engine: Engine, close: Callable[[], Any] | None = None) -> None:
        self.engine = engine
        self._close = close

    async def list(self) -> list[dict[str, Any]]:
        return await self.engine.list()

    def help(self) -> str:
        return help_text()

    async def create_from(self, name: str | None, description: str, groups: Any,
                          file: str | None) -> tuple[dict[str, Any], list[Problem]]:
        sequence, result = await self.engine.create_from(name, description, groups, file)
        return summary(sequence), result.warnings

    async def delete(self, name: str) -> bool:
        return await self.engine.delete(name)

    async def call(self, name: str, args: dict[str, Any], on_event: EventCallback | None = None) -> RunRecord:
        record = await self.engine.start(name, args)
        unsubscribe = None
        if on_event is not None:
            follower = RunFollower(on_event)
            follower.run_ids.add(record.run_id)
            unsubscribe = self.engine.bus.subscribe(follower)
        try:
            return await self.engine.runner.wait(record.run_id)
        except asyncio.CancelledError:
            await asyncio.shield(self.engine.stop(record.run_id))
            raise
        finally:
            if unsubscribe:
                unsubscribe()

    async def close(self) -> None:
        if self._close is not None:
            result = self._close()
            if asyncio.iscoroutine(result):
                await result


class RemoteOperations:
    """Operations sent to a running app's HTTP API."""

    def __init__(self, url: str, token: str | None = None) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url
        self._client = httpx.AsyncClient(base_url=url, headers=headers, timeout=httpx.Timeout(30, read=None))

    async def _request(self, method: str, path: str, **kw: Any) -> Any:
        """The app's JSON answer. A refusal raises: DslError for an invalid sequence, RunArgsError for
        args that do not fit, OperationError for anything else (with the app's own reason)."""
        import httpx

        try:
            response = await self._client.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise OperationError(f"the SeqDesk app at {self.url} did not answer: {exc}") from None
        if response.status_code == 204:
            return None
        try:
            body = response.json()
        except ValueError:
            raise OperationError(f"the SeqDesk app at {self.url} gave an answer that is not JSON "
                                 f"(HTTP {response.status_code})") from None
        if response.status_code < 400:
            return body
        detail = body.get("detail") if isinstance(body, dict) else None
        if response.status_code == 422 and isinstance(body, dict) and isinstance(body.get("errors"), list):
            raise DslError([Problem.model_validate({**p, "loc": tuple(p["loc"])}) for p in body["errors"]])
        if response.status_code == 422 and isinstance(body, dict) and isinstance(body.get("problems"), list):
            raise RunArgsError(body["problems"])
        raise OperationError(detail or f"the app refused: HTTP {response.status_code}")

    async def list(self) -> list[dict[str, Any]]:
        return await self._request("GET", "/api/sequences")

    def help(self) -> str:
        return help_text()

    async def create_from(self, name: str | None, description: str, groups: Any,
                          file: str | None) -> tuple[dict[str, Any], list[Problem]]:
        body = await self._request("POST", "/api/sequences", json=document_from(name, description, groups, file))
        warnings = [Problem.model_validate({**p, "loc": tuple(p["loc"]), "severity": "warning"})
                    for p in body.get("warnings", [])]
        return body.get("sequence", {}), warnings

    async def delete(self, name: str) -> bool:
        try:
            await self._request("DELETE", f"/api/sequences/{quote(name, safe='')}")
        except OperationError:
            return False
        return True

    async def call(self, name: str, args: dict[str, Any], on_event: EventCallback | None = None) -> RunRecord:
        return await self._start_and_wait({"sequence": name, "args": args}, on_event)

    async def run_document(self, doc: Any, args: dict[str, Any],
                           on_event: EventCallback | None = None) -> RunRecord:
        """Run a sequence that is not saved (a file given to `seqdesk run`) in the app."""
        return await self._start_and_wait({"document": doc, "args": args}, on_event)

    async def respond(self, interaction_id: str, response: dict[str, Any]) -> None:
        await self._request("POST", f"/api/interactions/{quote(interaction_id, safe='')}/respond", json=response)

    async def _start_and_wait(self, body: dict[str, Any], on_event: EventCallback | None) -> RunRecord:
        """Start the run and read the app's events until it ends; the stream is open before the run
        starts, so nothing it does (a request for a person, its very end) can be missed."""
        follower = RunFollower(on_event or (lambda _: None))
        async with self._events() as lines:
            run_id = (await self._request("POST", "/api/runs", json=body))["run_id"]
            follower.run_ids.add(run_id)
            try:
                async for line in lines:
                    event = _event(line)
                    if event is not None:
                        follower(event)
                        if event.type == "run.finished" and event.run_id == run_id:
                            break
            except asyncio.CancelledError:
                await asyncio.shield(self._request("POST", f"/api/runs/{run_id}/stop"))
                raise
        return RunRecord.model_validate(await self._request("GET", f"/api/runs/{run_id}"))

    @contextlib.asynccontextmanager
    async def _events(self) -> AsyncIterator[AsyncIterator[str]]:
        """The lines of the app's event stream, from the moment the app has subscribed it (its first
        line, `: connected`): an event published after that cannot be missed."""
        import httpx

        try:
            async with self._client.stream("GET", "/api/events") as stream:
                if stream.status_code >= 400:
                    await stream.aread()
                    raise OperationError(f"the SeqDesk app at {self.url} refused its event stream "
                                         f"(HTTP {stream.status_code})")
                lines = stream.aiter_lines()
                await anext(lines, None)
                yield lines
        except httpx.HTTPError as exc:
            raise OperationError(f"the SeqDesk app at {self.url} did not answer: {exc}") from None

    async def close(self) -> None:
        await self._client.aclose()


def _event(line: str) -> Event | None:
    """The event on a `data:` line of the stream; None for any other line."""
    if not line.startswith("data:"):
        return None
    try:
        data = json.loads(line[5:])
        fields = data.get("data")
        return Event(type=str(data["type"]), run_id=data.get("run_id"), data=fields if isinstance(fields, dict) else {})
    except (ValueError, KeyError, TypeError):
        return None


def write_endpoint(folder: Path, url: str, *, token_required: bool) -> Path:
    """Where the app listens, for the CLI and `seqdesk mcp`; whether it wants a token, never the token."""
    path = folder / ENDPOINT_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"url": url, "token_required": token_required, "pid": os.getpid()}, handle)
    os.replace(tmp, path)
    return path


def read_endpoint(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / ENDPOINT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = data.get("pid")
    if not isinstance(pid, int) or not _alive(pid) or not isinstance(data.get("url"), str):
        return None
    return data


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def connect(folder: Path | None = None) -> Operations:
    """Operations on the data folder: local when free, through the app when the app holds it."""
    from gui.runtime import open_runtime
    from gui.store.datadir import data_dir
    from gui.store.lock import DataFolderInUseError

    if os.environ.get("SEQDESK_MEMORY") == "1":
        runtime = await open_runtime(memory=True, mcp_wait=10.0)
        return LocalOperations(runtime.engine, runtime.close)
    folder = folder or data_dir()
    try:
        runtime = await open_runtime(folder, memory=False, mcp_wait=10.0)
    except DataFolderInUseError:
        endpoint = read_endpoint(folder)
        if endpoint is None:
            raise
        token = os.environ.get("SEQDESK_TOKEN") or None
        if endpoint.get("token_required") and not token:
            raise OperationError(f"the SeqDesk app at {endpoint['url']} holds this data folder and was started with "
                                 "a token: set SEQDESK_TOKEN to that token to reach it") from None
        return RemoteOperations(endpoint["url"], token)
    return LocalOperations(runtime.engine, runtime.close)
