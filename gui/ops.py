"""The operations an outside caller (the CLI, the MCP server) needs, wherever the engine lives.

When no app holds the data folder, `LocalOperations` opens the stores itself. When the app is open
on that folder (one process per folder), `RemoteOperations` sends the same operations to the app's
HTTP API: runs started from a terminal or by an agent then appear in the app, and their approvals
wait in the app's inbox. The app publishes where it listens in `seqdesk.endpoint.json` (owner-only).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

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
        unsubscribe = self.engine.bus.subscribe(
            lambda e: e.run_id == record.run_id and on_event(e)) if on_event else None
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
        import httpx

        try:
            response = await self._client.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise OperationError(f"the SeqDesk app at {self.url} did not answer: {exc}") from None
        return response

    async def list(self) -> list[dict[str, Any]]:
        return (await self._request("GET", "/api/sequences")).json()

    def help(self) -> str:
        return help_text()

    async def create_from(self, name: str | None, description: str, groups: Any,
                          file: str | None) -> tuple[dict[str, Any], list[Problem]]:
        doc = document_from(name, description, groups, file)
        response = await self._request("POST", "/api/sequences", json=doc)
        body = response.json()
        if response.status_code == 422 and "errors" in body:
            raise DslError([Problem.model_validate({**p, "loc": tuple(p["loc"])}) for p in body["errors"]])
        if response.status_code >= 400:
            raise OperationError(body.get("detail", f"the app refused: HTTP {response.status_code}"))
        warnings = [Problem.model_validate({**p, "loc": tuple(p["loc"]), "severity": "warning"})
                    for p in body.get("warnings", [])]
        return body.get("sequence", {}), warnings

    async def delete(self, name: str) -> bool:
        response = await self._request("DELETE", f"/api/sequences/{name}")
        return response.status_code < 300

    async def call(self, name: str, args: dict[str, Any], on_event: EventCallback | None = None) -> RunRecord:
        return await self._start_and_wait({"sequence": name, "args": args}, f"'{name}'", on_event)

    async def _start_and_wait(self, body_in: dict[str, Any], what: str,
                              on_event: EventCallback | None) -> RunRecord:
        own: dict[str, Any] = {"run_id": None, "early": []}

        def mine(event: Event) -> None:
            """Only this run's events (and its requests'); the app may be running others."""
            if own["run_id"] is None:
                own["early"].append(event)
            elif event.run_id == own["run_id"] and on_event is not None:
                on_event(event)

        events = asyncio.create_task(self._follow(mine)) if on_event else None
        try:
            response = await self._request("POST", "/api/runs", json=body_in)
            body = response.json()
            if response.status_code == 404:
                raise OperationError(body.get("detail", f"{what} was not found"))
            if response.status_code == 422 and isinstance(body.get("errors"), list):
                raise DslError([Problem.model_validate({**p, "loc": tuple(p["loc"])}) for p in body["errors"]])
            if response.status_code == 422:
                raise RunArgsError(body.get("problems") or [body.get("detail", "the args do not fit")])
            if response.status_code >= 400:
                raise OperationError(body.get("detail", f"the app refused: HTTP {response.status_code}"))
            run_id = body["run_id"]
            own["run_id"] = run_id
            for early in own["early"]:
                mine(early)
            try:
                return await self._wait(run_id)
            except asyncio.CancelledError:
                await asyncio.shield(self._request("POST", f"/api/runs/{run_id}/stop"))
                raise
        finally:
            if events:
                events.cancel()

    async def _wait(self, run_id: str) -> RunRecord:
        async with self._client.stream("GET", "/api/events") as stream:
            record = RunRecord.model_validate((await self._request("GET", f"/api/runs/{run_id}")).json())
            if record.finished:
                return record
            async for line in stream.aiter_lines():
                if line.startswith("data:") and run_id in line and "run.finished" in line:
                    break
        return RunRecord.model_validate((await self._request("GET", f"/api/runs/{run_id}")).json())

    async def _follow(self, on_event: EventCallback) -> None:
        async with self._client.stream("GET", "/api/events") as stream:
            async for line in stream.aiter_lines():
                if line.startswith("data:"):
                    try:
                        data = json.loads(line[5:])
                        on_event(Event(type=data["type"], run_id=data.get("run_id"), data=data.get("data", {})))
                    except (ValueError, KeyError, TypeError):
                        continue

    async def respond(self, interaction_id: str, response: dict[str, Any]) -> None:
        await self._request("POST", f"/api/interactions/{interaction_id}/respond", json=response)

    async def run_document(self, doc: Any, args: dict[str, Any],
                           on_event: EventCallback | None = None) -> RunRecord:
        """Run a sequence that is not saved (a file given to `seqdesk run`) in the app."""
        return await self._start_and_wait({"document": doc, "args": args}, "the file", on_event)

    async def close(self) -> None:
        await self._client.aclose()


def write_endpoint(folder: Path, url: str, token: str | None) -> Path:
    path = folder / ENDPOINT_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"url": url, "token": token, "pid": os.getpid()}, handle)
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
        return RemoteOperations(endpoint["url"], endpoint.get("token"))
    return LocalOperations(runtime.engine, runtime.close)
