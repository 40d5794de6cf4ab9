"""The gate that holds each request until the app's engine is open, and answers 503 once the app is
ending (`ReadyGate`): in front of the routes of the person's app (`gui.app`) and of the app started
in the background for a program (`gui.background_app`) alike."""

from __future__ import annotations

from typing import Protocol

from starlette.types import ASGIApp, Receive, Scope, Send


class Readiness(Protocol):
    """What the gate reads of the app (`gui.context.AppContext`)."""

    ending: bool
    clients: set[int]

    async def wait_open(self, timeout: float = 30.0) -> None: ...


class ReadyGate:
    """Holds each request until the engine is open: NiceGUI opens it in a background task at start-up,
    so the first page could otherwise arrive a moment before it. Once the app has decided to end
    (`gui.context.AppContext.ending`: started in the background, and nobody needs it now), each API request is
    answered 503 at once, `/api/health` too: a door that found its endpoint then waits it out and opens
    the folder itself, rather than start on an app whose server stops a moment later."""

    def __init__(self, app: ASGIApp, *, ctx: Readiness) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if self.ctx.ending and str(scope.get("path", "")).startswith("/api/"):
                from gui.api.body import json_response

                await json_response({"detail": "this SeqDesk is ending: it lets go of its data folder in a "
                                               "moment"}, 503)(scope, receive, send)
                return
            self._note_client(scope)
        if scope["type"] in ("http", "websocket") and not str(scope.get("path", "")).startswith("/_nicegui/"):
            try:
                await self.ctx.wait_open(timeout=30)
            except RuntimeError:
                pass  # the API answers 503 itself; pages show NiceGUI's error
        await self.app(scope, receive, send)

    def _note_client(self, scope: Scope) -> None:
        """A door (`RemoteEngine`) says which process it serves: an app started in the background
        stays while any of them lives (a sender can only keep it open longer, never close it)."""
        from gui.wire import CLIENT_PID

        for name, value in scope.get("headers", ()):
            if name == CLIENT_PID.encode() and value.isdigit() and len(value) < 10:
                self.ctx.clients.add(int(value))
                return
