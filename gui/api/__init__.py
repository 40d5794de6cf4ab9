"""The HTTP API beside the pages (SPEC §7): sequences, runs, interactions and the event stream.

The API is a thin skin over the engine (the one door, `gui.core.door.operations`): it turns requests into
engine calls and the engine's errors into 4xx answers whose `detail` says what is wrong and where.
Every handler reaches the engine through the provider it was handed at registration (the app's
composition root gives one that answers 503 until the engine is open). Bad input never becomes a
500: bodies are bounded and decoded by `body`, FastAPI's own validation errors are rewritten as
one readable sentence, and unknown `/api/...` paths answer JSON rather than NiceGUI's page.

In front of everything sits the request gate (`request_gate`: Host, Origin, Content-Type), then,
with a token, the token gate and the login form (`auth`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

import gui
from gui.api.auth import AUTH_SCOPE_KEY, FailureLimiter, TokenGate, client_of, register_login
from gui.api.body import BODY_SECONDS, BadRequest, BodyLimitMiddleware, json_response
from gui.api.events import register_events
from gui.api.interactions import register_interactions, register_rules
from gui.api.mcp_servers import register_mcp_servers
from gui.api.pairing import PairingGate, register_pairing
from gui.api.request_gate import RequestGate, Served
from gui.api.resume import register_resume
from gui.api.runs import register_runs
from gui.api.schedules import register_schedules
from gui.api.sequences import register_sequences
from gui.api.shared import EngineProvider, pydantic_detail
from gui.serving import is_loopback

if TYPE_CHECKING:
    from gui.phone import PhoneAccess


def _install_error_handlers(app: FastAPI) -> None:
    async def bad_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BadRequest)
        return json_response({"detail": exc.detail, **exc.extra}, exc.status)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        if not request.url.path.startswith("/api/"):  # NiceGUI's pages keep FastAPI's own answer
            return await request_validation_exception_handler(request, exc)
        return json_response({"detail": pydantic_detail(exc)}, 422)

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


def register_api(app: FastAPI, *, engine: EngineProvider, token: str | None, served: Served,
                 body_seconds: float = BODY_SECONDS, phone: PhoneAccess | None = None) -> None:
    """Add the `/api` routes, the error handlers, the body limit, the request gate (outermost: Host,
    Origin and Content-Type, see `gui.api.request_gate`) and, with a token, the token gate behind it.

    Without a token the app listens on 127.0.0.1 only. With one, every page and API call needs it,
    except `/login` and `/api/health`, which then answers only `{"ok": true}` (its version only to a
    client that is logged in).

    With `phone` (the app's `PhoneAccess`), the pairing gate sits between the two: a request from
    another address passes only as a paired phone (or with the token), see `gui.api.pairing`.
    """
    _install_error_handlers(app)
    register_sequences(app, engine)
    register_runs(app, engine)
    register_resume(app, engine)
    register_schedules(app, engine)
    register_interactions(app, engine)
    register_rules(app, engine)
    register_mcp_servers(app, engine)

    @app.get("/api/health")
    async def health(request: Request) -> Response:
        here = is_loopback(client_of(request.scope))
        if (token is None and here) or request.scope.get(AUTH_SCOPE_KEY):
            return json_response({"ok": True, "version": gui.__version__})
        return json_response({"ok": True})

    register_events(app, engine)
    app.add_middleware(ApiFallback, router=app.router)
    app.add_middleware(BodyLimitMiddleware, seconds=body_seconds)
    limiter = FailureLimiter()
    if token is not None:
        register_login(app, token, limiter)
        app.add_middleware(TokenGate, token=token, limiter=limiter)  # before any body is read
    if phone is not None:
        from nicegui import core

        register_pairing(app, lambda: phone, lambda: core.app, limiter)
        app.add_middleware(PairingGate, phone=phone, token=token)
    app.add_middleware(RequestGate, served=served)  # added last: outermost




__all__ = ["EngineProvider", "Served", "register_api"]
