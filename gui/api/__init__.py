"""The HTTP API beside the pages (SPEC §7): sequences, runs, interactions and the event stream.

The API is a thin skin over the engine (the one door, `gui.core.door.operations`): it turns requests into
engine calls, and the engine's errors, through one table (`gui.wire.errors`), into answers whose `detail` says
what is wrong and where and whose `code` says which error it is. Every route is named in one list
(`routes`); each reaches the engine through the provider it was handed at registration (the app's
composition root gives one that answers 503 until the engine is open). Bad input never becomes a
500: bodies are bounded and decoded by `body`, FastAPI's own validation errors are rewritten as
one readable sentence, and unknown `/api/...` paths answer JSON rather than NiceGUI's page.

In front of everything sits the request gate (`request_gate`: Host, Origin, Content-Type), then,
with a token, the token gate and the login form (`auth`); on a team server (accounts given) the
people gate (`people_gate`) and the sign-in pages (`sign_in`) instead, and every route checks its
role (`roles`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from gui.api import errors
from gui.api.auth import TokenGate
from gui.api.body import BODY_SECONDS, BodyLimitMiddleware, json_response
from gui.api.limiter import FailureLimiter
from gui.api.pairing import PairingGate
from gui.api.people_gate import PeopleGate
from gui.api.ready_gate import ReadyGate
from gui.api.request_gate import RequestGate, Served
from gui.api.routes import add_routes, routes
from gui.api.shared import ApiContext, EngineProvider

if TYPE_CHECKING:
    from gui.core.people import Accounts
    from gui.notify import Notifier
    from gui.people import OidcSignIn
    from gui.phone import PhoneAccess


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
                 body_seconds: float = BODY_SECONDS, phone: PhoneAccess | None = None,
                 notifier: Callable[[], Notifier] | None = None, people: Callable[[], Accounts] | None = None,
                 oidc: OidcSignIn | None = None, ready: Callable[[], Awaitable[None]] | None = None) -> None:
    """Add the routes (`gui.api.routes`), the error handlers (`gui.api.errors`), the body limit, the
    request gate (outermost: Host, Origin and Content-Type, see `gui.api.request_gate`) and, with a
    token, the token gate behind it. `engine` and `notifier` give what the routes use, or raise
    Unavailable while it is not open (left out: those routes always answer so).

    Without a token the app listens on 127.0.0.1 only. With one, every page and API call needs it,
    except `/login` and `/api/health`, which then answers only `{"ok": true}` (its version only to a
    client that is logged in).

    With `phone` (the app's `PhoneAccess`), the pairing gate sits between the two: a request from
    another address passes only as a paired phone (or with the token), see `gui.api.pairing`.

    With `people` (a team server's accounts, or Unavailable while they are not open), people sign in:
    the people gate takes the token gate's place, phones are not offered (each person signs in on
    theirs), and every route checks its role (`gui.api.roles`); `oidc` adds the company sign-in;
    `ready` waits while the accounts are still being opened at start-up.

    On NiceGUI's app, the app's composition root swaps NiceGUI's own middlewares for plain ASGI ones
    that answer in the request's task (`gui.api.plain_middleware.use_plain_middleware`); an app that
    serves the API alone (`gui.background_app`) has none of them.
    """
    limiter = FailureLimiter()
    team = people is not None
    if team:
        token, phone = None, None
    given: dict[str, Callable[[], Any] | None] = {"notifier": notifier}
    if phone is not None:
        from nicegui import core

        given |= {"phone": lambda: phone, "asgi_app": lambda: core.app}  # the phones' listener serves it all
    app.state.seqdesk_api = ApiContext(engine=engine, limiter=limiter, token=token, people=people, oidc=oidc,
                                       **{name: provider for name, provider in given.items() if provider is not None})
    errors.install(app)
    add_routes(app, routes(login=token is not None, phones=phone is not None, team=team), team=team)
    app.add_middleware(ApiFallback, router=app.router)
    app.add_middleware(BodyLimitMiddleware, seconds=body_seconds)
    if token is not None:
        app.add_middleware(TokenGate, token=token, limiter=limiter)  # before any body is read
    if people is not None:
        app.add_middleware(PeopleGate, accounts=people, limiter=limiter, ready=ready)
    if phone is not None:
        app.add_middleware(PairingGate, phone=phone, token=token)
    app.add_middleware(RequestGate, served=served)  # added last: outermost


__all__ = ["EngineProvider", "ReadyGate", "Served", "register_api"]
