"""NiceGUI's HTTP middlewares made cheap: three as plain ASGI, so that an answer leaves as soon as
it is made, and gzip at its fastest level.

`ui.run` adds `RequestTrackingMiddleware` (user storage per session), `RedirectWithPrefixMiddleware`
and `SetCacheControlMiddleware`, all three Starlette `BaseHTTPMiddleware`s: each runs the rest of
the app in a task of its own and passes the answer back through a memory stream. Per request that
is three more tasks and every message handed over three times; worse, an answer that wakes work on
the event loop (`respond` resumes the tool that asked, which starts its command) waits behind that
work, since each hand-over lets the loop run it first. Measured (issue 24): `respond` spent ~60 ms
between its handler's return and its last byte. The plain versions below do the same things in the
request's own task: the answer is written to the socket before anything it woke runs.

Its gzip compresses at level 9: 9 ms of the event loop for a page of fifty runs (135 KB) where
level 1 takes 1.3 ms for a body 4.7 KB instead of 3.6 KB. It keeps its place, at level 1.

`use_plain_middleware(app)` swaps them in when the app builds its middleware stack (at its first
request or start-up, after `ui.run` has added them), keeping their places in the order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from nicegui import core, storage
from nicegui.middlewares import RedirectWithPrefixMiddleware, SetCacheControlMiddleware
from nicegui.version import __version__
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gui.api.body import GZIP_LEVEL

_VERSIONED = f"/_nicegui/{__version__}/"
_DYNAMIC = f"/_nicegui/{__version__}/dynamic_resources/"


class RequestTracking:
    """NiceGUI's `RequestTrackingMiddleware`: a session id, the user storage, the request in context,
    and the count of requests in flight per session (user storage is not pruned under one)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        storage.request_contextvar.set(request)
        if "id" not in request.session:
            request.session["id"] = str(uuid.uuid4())
        request.state.responded = False
        session_id = request.session["id"]
        active = core.app.storage._active_request_sessions  # noqa: SLF001 - NiceGUI's own bookkeeping
        active[session_id] += 1

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                request.state.responded = True  # the session cookie is in these headers: too late to change
            await send(message)

        try:
            if session_id not in core.app.storage._users:  # noqa: SLF001
                await core.app.storage._create_user_storage(session_id)  # noqa: SLF001
            await self.app(scope, receive, sending)
        finally:
            active[session_id] -= 1
            if active[session_id] <= 0:
                del active[session_id]


class _HeaderRewrite:
    """Changes the headers of every HTTP answer on their way out (`rewrite(scope, headers)`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def rewrite(self, scope: Scope, headers: MutableHeaders) -> None:
        raise NotImplementedError

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.rewrite(scope, MutableHeaders(scope=message))
            await send(message)

        await self.app(scope, receive, sending)


class RedirectWithPrefix(_HeaderRewrite):
    """NiceGUI's `RedirectWithPrefixMiddleware`: a redirect to a path keeps `X-Forwarded-Prefix`."""

    def rewrite(self, scope: Scope, headers: MutableHeaders) -> None:
        location = headers.get("location")
        if location is not None and location.startswith("/"):
            prefix = Request(scope).headers.get("x-forwarded-prefix", "")
            headers["location"] = prefix + location


class SetCacheControl(_HeaderRewrite):
    """NiceGUI's `SetCacheControlMiddleware`: its versioned files are cached as configured."""

    def rewrite(self, scope: Scope, headers: MutableHeaders) -> None:
        path = str(scope.get("path", ""))
        if path.startswith(_VERSIONED) and not path.startswith(_DYNAMIC):
            headers["cache-control"] = core.app.config.cache_control_directives


PLAIN: dict[type, Any] = {
    storage.RequestTrackingMiddleware: RequestTracking,
    RedirectWithPrefixMiddleware: RedirectWithPrefix,
    SetCacheControlMiddleware: SetCacheControl,
}




def plain(middleware: Middleware) -> Middleware:
    """The plain version of one of NiceGUI's middlewares (same arguments), gzip at `GZIP_LEVEL`
    unless a level was chosen; any other as it is."""
    cls: Any = middleware.cls
    if cls is GZipMiddleware and "compresslevel" not in middleware.kwargs and not middleware.args:
        kwargs: dict[str, Any] = {**middleware.kwargs, "compresslevel": GZIP_LEVEL}
        return Middleware(cls, **kwargs)
    swap = PLAIN.get(cls)
    return Middleware(swap, *middleware.args, **middleware.kwargs) if swap is not None else middleware


def use_plain_middleware(app: Any) -> None:
    """Swap NiceGUI's middlewares for the plain ones whenever `app` builds its middleware stack."""
    build: Callable[[], ASGIApp] = app.build_middleware_stack

    def build_plain() -> ASGIApp:
        app.user_middleware[:] = [plain(m) for m in app.user_middleware]
        return build()

    app.build_middleware_stack = build_plain
