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

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal
from urllib.parse import quote

from fastapi import FastAPI, Query, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response
from pydantic import ValidationError
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

import gui
from gui import runtime
from gui.api_body import BODY_SECONDS, BadRequest, BodyLimitMiddleware, json_response, read_json, type_name
from gui.api_events import register_events
from gui.api_models import RUN_BODY, CancelBody, CheckBody, SavedBody, StartRun
from gui.auth import AUTH_SCOPE_KEY, FailureLimiter, TokenGate, register_login
from gui.core.documents import NotFoundError, summary
from gui.core.engine import Engine
from gui.core.errors import DslError
from gui.core.export import to_document, to_text
from gui.core.interaction_service import (
    InteractionNotFoundError,
    InteractionNotPendingError,
    InteractionValidationError,
)
from gui.core.interactions import InteractionKind, InteractionRecord
from gui.core.operations import Saved
from gui.core.records import RunRecord, RunStatus
from gui.core.registry import Tool
from gui.core.run_args import RunArgsError
from gui.core.validator import InvalidSequenceError, ValidationResult
from gui.request_gate import RequestGate, Served

log = logging.getLogger(__name__)

_RESPONSE_BODY = 'a response like {"kind": "approval", "decision": "approved"}'


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
    _register_rules(app)

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


def _saved(saved: Saved) -> dict[str, Any]:
    return SavedBody(sequence=summary(saved.sequence), document=to_document(saved.sequence),
                     warnings=[p.to_json() for p in saved.warnings]).model_dump()


async def _save(doc: Any, save: Callable[[], Awaitable[Saved]]) -> Saved | Response:
    """The saved sequence, or the 422 that lists every problem (capped in size)."""
    try:
        return await save()
    except InvalidSequenceError as exc:
        return _validation_failure(exc.result)
    except DslError as exc:  # not from validation (`file` unreadable, …): no fuller result exists
        return _validation_failure(ValidationResult(errors=exc.errors,
                                                    warnings=[p for p in exc.problems if p not in exc.errors]))
    except NotFoundError as exc:
        raise BadRequest(404, str(exc)) from None


def _register_sequences(app: FastAPI) -> None:
    @app.get("/api/sequences")
    async def list_sequences() -> Response:
        return json_response(await engine().list_sequences())

    @app.post("/api/sequences")
    async def create_sequence(request: Request) -> Response:
        """Validate and save a sequence: 201 new, 200 replaced, 422 with every problem."""
        doc = await read_json(request, expect="a sequence document (a JSON object)")
        eng = engine()
        name = doc.get("name") if isinstance(doc, dict) else None
        existed = isinstance(name, str) and await eng.get(name) is not None
        saved = await _save(doc, lambda: eng.create(doc))
        if isinstance(saved, Response):
            return saved
        return json_response(_saved(saved), 200 if existed else 201,
                             {"Location": f"/api/sequences/{quote(saved.sequence.name, safe='')}"})

    @app.post("/api/check")
    async def check_sequence(request: Request) -> Response:
        """Validate without saving: 200 with `ok`, every error and warning, and the signature."""
        raw = await read_json(request, expect='{"document": {...}, "replacing": "old name"}')
        try:
            body = CheckBody.model_validate(raw)
        except ValidationError as exc:
            raise BadRequest(422, f"the body must be {{\"document\": ...}}: {_pydantic_detail(exc)}") from None
        return json_response(capped(await engine().check(body.document, replacing=body.replacing)))

    @app.get("/api/sequences/{name:path}")
    async def get_sequence(name: str, format: Literal["json", "text"] = "json") -> Response:
        sequence = await engine().get(name)
        if sequence is None:
            raise BadRequest(404, f"there is no saved sequence named '{name}'")
        if format == "text":
            return PlainTextResponse(to_text(sequence))
        return json_response(to_document(sequence))

    @app.put("/api/sequences/{name:path}")
    async def replace_sequence(name: str, request: Request) -> Response:
        """Save the body in place of `name` (a rename when its name differs), in one step."""
        doc = await read_json(request, expect="a sequence document (a JSON object)")
        eng = engine()
        saved = await _save(doc, lambda: eng.rename(name, doc))
        if isinstance(saved, Response):
            return saved
        return json_response(_saved(saved), 200, {"Location": f"/api/sequences/{quote(saved.sequence.name, safe='')}"})

    @app.delete("/api/sequences/{name:path}")
    async def delete_sequence(name: str) -> Response:
        if not await engine().delete(name):
            raise BadRequest(404, f"there is no saved sequence named '{name}'")
        return Response(status_code=204)

    @app.get("/api/tools")
    async def list_tools() -> Response:
        """Every tool the app knows (built in, and from MCP servers), with its argument schema."""
        return json_response([tool_json(t) for t in engine().tools()])


def tool_json(tool: Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "asks_first": tool.approval != "none",
            "approval": tool.approval, "concurrency_safe": tool.concurrency_safe, "input_schema": tool.input_schema()}


def _register_runs(app: FastAPI) -> None:
    @app.post("/api/runs")
    async def start_run(request: Request) -> Response:
        """Start a sequence (or one group, by its name): 202 at once, the run goes on."""
        raw = await read_json(request, expect=RUN_BODY)
        if not isinstance(raw, dict):
            raise BadRequest(422, f"the body must be {RUN_BODY}, not {type_name(raw)}")
        try:
            body = StartRun.model_validate(raw)
        except ValidationError as exc:
            raise BadRequest(422, f"the body must be {RUN_BODY}: {_pydantic_detail(exc)}") from None
        if (body.sequence is None) == (body.document is None):
            raise BadRequest(422, f"the body must be {RUN_BODY} (give either sequence or document)")
        eng = engine()
        try:
            if body.document is not None:
                record = await eng.start_document(body.document, body.args or {})
            else:
                assert body.sequence is not None
                record = await eng.start(body.sequence, body.args or {})
        except InvalidSequenceError as exc:
            raise BadRequest(422, "the document is not a valid sequence", **capped(exc.result)) from None
        except NotFoundError as exc:
            raise BadRequest(404, str(exc)) from None
        except RunArgsError as exc:
            raise BadRequest(422, str(exc), problems=exc.problems) from None
        return json_response({"run_id": record.run_id, "status": record.status}, 202,
                             {"Location": f"/api/runs/{record.run_id}"})

    @app.get("/api/runs")
    async def list_runs(limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=10**9),
                        status: RunStatus | None = None, sequence: str | None = None,
                        started_from: float | None = None, started_to: float | None = None,
                        q: str | None = Query(None, description="text in the sequence's name")) -> Response:
        """Newest first; `X-Total-Count` says how many match."""
        page = await engine().run_page(status=status, sequence=sequence, started_from=started_from,
                                       started_to=started_to, text=q, limit=limit, offset=offset)
        return json_response([_record(r) for r in page.items], headers={"X-Total-Count": str(page.total)})

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
                                run_id: str | None = None, kind: InteractionKind | None = None,
                                sequence: str | None = None, tool: str | None = None,
                                limit: int = Query(100, ge=1, le=1000),
                                offset: int = Query(0, ge=0, le=10**9)) -> Response:
        """Newest first; `X-Total-Count` says how many match."""
        page = await engine().interaction_page(status=status, kind=kind, run_id=run_id, sequence=sequence,
                                               tool_name=tool, limit=limit, offset=offset)
        return json_response([_interaction(r) for r in page.items], headers={"X-Total-Count": str(page.total)})

    @app.get("/api/interactions/{interaction_id}")
    async def get_interaction(interaction_id: str) -> Response:
        record = await engine().get_interaction(interaction_id)
        if record is None:
            raise BadRequest(404, f"there is no interaction {interaction_id}")
        return json_response(_interaction(record))

    @app.post("/api/interactions/{interaction_id}/respond")
    async def respond(interaction_id: str, request: Request) -> Response:
        """200 with the result; 409 when it has ended; 422 when the response does not fit."""
        eng = engine()
        if await eng.get_interaction(interaction_id) is None:
            raise BadRequest(404, f"there is no interaction {interaction_id}")
        response = _unwrap(interaction_id, await read_json(request, expect=_RESPONSE_BODY))
        try:
            result = await eng.respond(interaction_id, response)
        except InteractionNotFoundError as exc:
            raise BadRequest(404, exc.message) from None
        except InteractionNotPendingError as exc:
            raise BadRequest(409, exc.message) from None
        except InteractionValidationError as exc:
            raise BadRequest(422, exc.message) from None
        return json_response(result.model_dump(mode="json"))

    @app.post("/api/interactions/{interaction_id}/cancel")
    async def cancel(interaction_id: str, request: Request) -> Response:
        """Cancel a pending request (its tool does not run); 200 with whether it was still pending."""
        eng = engine()
        if await eng.get_interaction(interaction_id) is None:
            raise BadRequest(404, f"there is no interaction {interaction_id}")
        raw = await read_json(request, expect='{"reason": "no_one_to_ask"}')
        try:
            body = CancelBody.model_validate(raw)
        except ValidationError as exc:
            raise BadRequest(422, f"the body must be {{\"reason\": ...}}: {_pydantic_detail(exc)}") from None
        return json_response({"cancelled": await eng.cancel_interaction(interaction_id, body.reason)})


def _register_rules(app: FastAPI) -> None:
    @app.get("/api/approval-rules")
    async def rules() -> Response:
        """Every tool that is not "ask" (the default), with its mode."""
        return json_response(await engine().approval_rules())

    @app.delete("/api/approval-rules/{tool:path}")
    async def revoke(tool: str) -> Response:
        """The tool asks every time again. "Always allow" is granted only by answering an approval."""
        await engine().revoke_approval_rule(tool)
        return Response(status_code=204)


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
