"""The HTTP API beside the pages (SPEC §7): sequences, runs, interactions and the event stream.

Every handler reaches the engine through `gui.runtime.current()` at request time, so the routes can
be registered before the engine opens and tests can put an in-memory engine in place. The API is a
thin skin over `Engine`: it turns requests into engine calls and the engine's errors into 4xx
answers whose `detail` says what is wrong and where. Bad input never becomes a 500: bodies are
bounded and decoded by `api_body`, FastAPI's own validation errors are rewritten as one readable
sentence, and unknown `/api/...` paths answer JSON rather than NiceGUI's page.

With a token, `register_api` also installs the token gate and the login form (`gui.auth`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal
from urllib.parse import quote

from fastapi import FastAPI, Query, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

import gui
from gui import runtime
from gui.api_body import BODY_SECONDS, BadRequest, BodyLimitMiddleware, json_response, read_json, type_name
from gui.api_events import register_events
from gui.auth import AUTH_SCOPE_KEY, FailureLimiter, TokenGate, register_login
from gui.core.catalog import NotFoundError, summary, tool_catalog
from gui.core.engine import Engine
from gui.core.errors import DslError
from gui.core.export import to_document, to_text
from gui.core.interaction_service import (
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionValidationError,
)
from gui.core.interactions import InteractionRecord
from gui.core.records import RunRecord
from gui.core.run_args import RunArgsError
from gui.core.validator import InvalidSequenceError, ValidationResult, check_document
from gui.request_gate import RequestGate, Served

log = logging.getLogger(__name__)

_RUN_BODY = 'a JSON object like {"sequence": "name", "args": {}}'
_RESPONSE_BODY = 'a response like {"kind": "approval", "decision": "approved"}'


class StartRun(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    sequence: str | None = Field(default=None, min_length=1)
    document: dict[str, Any] | None = None  # an unsaved sequence (a file given to `seqdesk run`)
    args: dict[str, Any] | None = None


def engine() -> Engine:
    try:
        return runtime.current().engine
    except RuntimeError as exc:
        raise BadRequest(503, f"{exc}: try again in a moment") from None


def _pydantic_detail(exc: ValidationError | RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        got = f" (got {error['input']!r:.60})" if "input" in error and error.get("type") != "missing" else ""
        parts.append(f"{where}: {error.get('msg', 'is not valid')}{got}")
    return "; ".join(parts) or "the request is not valid"


def _record(record: RunRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True)


def _interaction(record: InteractionRecord) -> dict[str, Any]:
    return {"interaction_id": record.interaction_id, **record.model_dump(mode="json")}


MAX_PROBLEMS = 100
MAX_MESSAGE = 500


def capped(result: ValidationResult) -> dict[str, Any]:
    """`result.to_json()` with at most MAX_PROBLEMS errors and warnings, each message shortened: an
    answer about a huge document stays small (the totals say how many there were)."""
    body = result.to_json()
    for key in ("errors", "warnings"):
        problems = body[key]
        if len(problems) > MAX_PROBLEMS:
            body[f"{key}_total"] = len(problems)
            body[key] = problems = problems[:MAX_PROBLEMS]
        for problem in problems:
            if len(problem["message"]) > MAX_MESSAGE:
                problem["message"] = problem["message"][:MAX_MESSAGE] + "…"
    return body


def _validation_failure(result: ValidationResult) -> Response:
    count = len(result.errors)
    first = str(result.errors[0])[:MAX_MESSAGE] if result.errors else "the sequence is not valid"
    more = f" (and {count - 1} more)" if count > 1 else ""
    return json_response({"detail": f"the sequence is not valid: {first}{more}", **capped(result)}, 422)


def _install_error_handlers(app: FastAPI) -> None:
    async def bad_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BadRequest)
        return json_response({"detail": exc.detail, **exc.extra}, exc.status)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        if not request.url.path.startswith("/api/"):  # NiceGUI's pages keep FastAPI's own answer
            return await request_validation_exception_handler(request, exc)
        return json_response({"detail": _pydantic_detail(exc)}, 422)

    app.add_exception_handler(BadRequest, bad_request)
    app.add_exception_handler(RequestValidationError, invalid_request)


class ApiFallback:
    """JSON 404 / 405 for `/api/...` requests that no route takes (NiceGUI would answer with a page).

    A middleware rather than a catch-all route, so that routes added later still win.
    """

    def __init__(self, app: ASGIApp, *, router: Router) -> None:
        self.app = app
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith("/api/"):
            allowed: set[str] = set()
            for route in self.router.routes:
                match, _ = route.matches(scope)
                if match is Match.FULL:
                    break
                if match is Match.PARTIAL:
                    allowed.update(getattr(route, "methods", None) or ())
            else:
                method, path = scope.get("method", "GET"), scope["path"]
                if allowed:
                    methods = ", ".join(sorted(allowed))
                    answer = json_response({"detail": f"{method} is not allowed on {path} (use {methods})"}, 405,
                                           {"Allow": methods})
                else:
                    answer = json_response({"detail": f"there is no API route {method} {path}"}, 404)
                await answer(scope, receive, send)
                return
        await self.app(scope, receive, send)


def register_api(app: FastAPI, *, token: str | None, served: Served, body_seconds: float = BODY_SECONDS) -> None:
    """Add the `/api` routes, the error handlers, the body limit, the request gate (outermost: Host,
    Origin and Content-Type, see `gui.request_gate`) and, with a token, the token gate behind it.

    Without a token the app listens on 127.0.0.1 only. With one, every page and API call needs it,
    except `/login` and `/api/health`, which then answers only `{"ok": true}` (its version only to a
    client that is logged in).
    """
    _install_error_handlers(app)
    _register_sequences(app)
    _register_runs(app)
    _register_interactions(app)

    @app.get("/api/health")
    async def health(request: Request) -> Response:
        if token is None or request.scope.get(AUTH_SCOPE_KEY):
            return json_response({"ok": True, "version": gui.__version__})
        return json_response({"ok": True})

    register_events(app, engine)
    app.add_middleware(ApiFallback, router=app.router)
    app.add_middleware(BodyLimitMiddleware, seconds=body_seconds)
    if token is not None:
        limiter = FailureLimiter()
        register_login(app, token, limiter)
        app.add_middleware(TokenGate, token=token, limiter=limiter)  # before any body is read
    app.add_middleware(RequestGate, served=served)  # added last: outermost


def _register_sequences(app: FastAPI) -> None:
    @app.get("/api/sequences")
    async def list_sequences() -> Response:
        return json_response(await engine().list())

    @app.post("/api/sequences")
    async def create_sequence(request: Request) -> Response:
        """Validate and save a sequence: 201 new, 200 replaced, 422 with every problem."""
        doc = await read_json(request, expect="a sequence document (a JSON object)")
        eng = engine()
        name = doc.get("name") if isinstance(doc, dict) else None
        existed = isinstance(name, str) and await eng.get(name) is not None
        try:
            sequence, result = await eng.create(doc)
        except InvalidSequenceError as exc:
            return _validation_failure(exc.result)
        except DslError as exc:
            checked = await eng.check(doc)
            if checked.ok:  # it became invalid between the two checks (a name taken meanwhile)
                checked = ValidationResult(errors=exc.errors, warnings=[p for p in exc.problems if p not in exc.errors])
            return _validation_failure(checked)
        body = {"sequence": summary(sequence), "warnings": [p.to_json() for p in result.warnings]}
        return json_response(body, 200 if existed else 201,
                             {"Location": f"/api/sequences/{quote(sequence.name, safe='')}"})

    @app.get("/api/sequences/{name:path}")
    async def get_sequence(name: str, format: Literal["json", "text"] = "json") -> Response:
        sequence = await engine().get(name)
        if sequence is None:
            raise BadRequest(404, f"there is no saved sequence named '{name}'")
        if format == "text":
            return PlainTextResponse(to_text(sequence))
        return json_response(to_document(sequence))

    @app.delete("/api/sequences/{name:path}")
    async def delete_sequence(name: str) -> Response:
        if not await engine().delete(name):
            raise BadRequest(404, f"there is no saved sequence named '{name}'")
        return Response(status_code=204)


def _register_runs(app: FastAPI) -> None:
    @app.post("/api/runs")
    async def start_run(request: Request) -> Response:
        """Start a sequence (or one group, by its name): 202 at once, the run goes on."""
        raw = await read_json(request, expect=_RUN_BODY)
        if not isinstance(raw, dict):
            raise BadRequest(422, f"the body must be {_RUN_BODY}, not {type_name(raw)}")
        try:
            body = StartRun.model_validate(raw)
        except ValidationError as exc:
            raise BadRequest(422, f"the body must be {_RUN_BODY}: {_pydantic_detail(exc)}") from None
        if (body.sequence is None) == (body.document is None):
            raise BadRequest(422, f"the body must be {_RUN_BODY} (give either sequence or document)")
        try:
            if body.document is not None:
                eng = engine()
                result = await asyncio.to_thread(check_document, body.document, tool_catalog(eng.registry))
                if not result.ok or result.sequence is None:
                    raise BadRequest(422, "the document is not a valid sequence", **capped(result))
                record = await eng.runner.start(result.sequence, body.args or {})
            else:
                assert body.sequence is not None
                record = await engine().start(body.sequence, body.args or {})
        except NotFoundError as exc:
            raise BadRequest(404, str(exc)) from None
        except RunArgsError as exc:
            raise BadRequest(422, str(exc), problems=exc.problems) from None
        return json_response({"run_id": record.run_id, "status": record.status}, 202,
                             {"Location": f"/api/runs/{record.run_id}"})

    @app.get("/api/runs")
    async def list_runs(limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=10**9)) -> Response:
        eng = engine()
        records = []
        for record in await eng.list_runs(limit, offset):
            live = None if record.finished else await eng.get_run(record.run_id)
            records.append(_record(live or record))
        return json_response(records)

    @app.get("/api/runs/{run_id}")
    async def get_run(run_id: str) -> Response:
        record = await engine().get_run(run_id)
        if record is None:
            raise BadRequest(404, f"there is no run {run_id}")
        return json_response(_record(record))

    @app.post("/api/runs/{run_id}/stop")
    async def stop_run(run_id: str) -> Response:
        """200 with whether this call stopped it (false: it had already ended)."""
        eng = engine()
        if await eng.get_run(run_id) is None:
            raise BadRequest(404, f"there is no run {run_id}")
        return json_response({"stopped": await eng.stop(run_id)})


def _register_interactions(app: FastAPI) -> None:
    @app.get("/api/interactions")
    async def list_interactions(status: Literal["pending", "resolved", "expired", "cancelled"] | None = None,
                                run_id: str | None = None, limit: int = Query(100, ge=1, le=1000),
                                offset: int = Query(0, ge=0, le=10**9)) -> Response:
        """Newest first."""
        records = await engine().interaction_store.list(status)
        chosen = [r for r in records if run_id is None or r.request.turn_id == run_id]
        chosen.sort(key=lambda r: r.request.created_at, reverse=True)
        return json_response([_interaction(r) for r in chosen[offset:offset + limit]])

    @app.get("/api/interactions/{interaction_id}")
    async def get_interaction(interaction_id: str) -> Response:
        record = await engine().interactions.get(interaction_id)
        if record is None:
            raise BadRequest(404, f"there is no interaction {interaction_id}")
        return json_response(_interaction(record))

    @app.post("/api/interactions/{interaction_id}/respond")
    async def respond(interaction_id: str, request: Request) -> Response:
        """200 with the result; 409 when it has ended; 422 when the response does not fit."""
        eng = engine()
        if await eng.interactions.get(interaction_id) is None:
            raise BadRequest(404, f"there is no interaction {interaction_id}")
        response = _unwrap(interaction_id, await read_json(request, expect=_RESPONSE_BODY))
        try:
            result = await eng.interactions.respond(interaction_id, response)
        except InteractionNotFoundError as exc:
            raise BadRequest(404, exc.message) from None
        except InteractionNotPendingError as exc:
            raise BadRequest(409, exc.message) from None
        except InteractionValidationError as exc:
            raise BadRequest(422, exc.message) from None
        return json_response(result.model_dump(mode="json"))


def _unwrap(interaction_id: str, body: Any) -> dict[str, Any]:
    """The response itself, or the seed's `{"interaction_id"?, "response": {...}}` around it."""
    if not isinstance(body, dict):
        raise BadRequest(422, f"the body must be {_RESPONSE_BODY}, not {type_name(body)}")
    if "response" in body and "kind" not in body:
        extra = sorted(set(body) - {"response", "interaction_id"})
        if extra:
            raise BadRequest(422, f"unexpected field(s) beside 'response': {', '.join(extra)}")
        given = body.get("interaction_id", interaction_id)
        if given != interaction_id:
            raise BadRequest(422, f"interaction_id {given!r} in the body does not match {interaction_id!r} in the URL")
        body = body["response"]
        if not isinstance(body, dict):
            raise BadRequest(422, f"'response' must be {_RESPONSE_BODY}, not {type_name(body)}")
    return body
