"""The app a door starts in the background for a program (`seqdesk run`, `seqdesk mcp`:
`gui.second_launch.spawn_background`), served light until a person looks at it.

A program needs the HTTP API only (and the engine, the stores, the MCP servers its sequences use), so
the app serves just that at first, on uvicorn directly: the same routes (`gui.api.register_api`) behind
the same gates (Host, Origin, Content-Type; the token and its login form; the body limit) and the
same `ReadyGate` (held until the engine is open, 503 once the app is ending) as the person's app, but
without NiceGUI, whose import and pages were half of its start. The person's SeqDesk that joins it
(`POST /api/window/focus`: a window, or the address for `seqdesk --browser`), or any page asked of it
in a browser, opens its pages first (`Pages.open`): NiceGUI is imported then, its app is built on the
engine already open (the API, its gates and the pages, as `gui.app.create_app` builds them) and
started on this server, and every request from then on goes to it. A run going on meanwhile goes on:
it runs in this process's engine, which the pages are handed. With phone access on (as the app was
last closed), the pages open at start-up: phones reach the app on the network through them.

It ends as every app started in the background ends (`until_unneeded`): once its program has
gone and nothing runs or waits there, unless a person joined it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from gui.second_launch import FOCUS_PATH

if TYPE_CHECKING:
    import uvicorn

    from gui.context import AppContext
    from gui.window import Shown

log = logging.getLogger(__name__)


class Pages:
    """The pages of an app served light, opened once a person needs them (`open`)."""

    def __init__(self, ctx: AppContext, *, host: str, port: int, url: str, data_dir: Path | None,
                 browser: str | None, surfaces: Callable[[Any], None],
                 phone_on: Callable[[], Awaitable[None]]) -> None:
        self.ctx, self.host, self.port, self.url = ctx, host, port, url
        self.data_dir, self.browser = data_dir, browser
        self.surfaces = surfaces  # the API, its gates and the pages on NiceGUI's app (`gui.app.add_surfaces`)
        self.phone_on = phone_on  # phones' access again, when it was on (`gui.app.turn_phone_on`)
        self.server: uvicorn.Server | None = None  # the server they are served on, once it runs
        self.app: ASGIApp | None = None  # NiceGUI's app, serving everything once open
        self.shown: Shown | None = None  # its window or tab, once a person asked for it
        self._opening = asyncio.Lock()

    @property
    def joined(self) -> bool:
        """Whether a person asked to see it (a window, a tab, its address for their browser): theirs now."""
        shown = self.shown
        return shown is not None and (shown.window is not None or shown.tab or shown.address_given)

    async def open(self) -> ASGIApp:
        """NiceGUI's app with the API, its gates and the pages on this app's context, started on the
        server that runs (once; a second call waits for the first)."""
        async with self._opening:
            if self.app is not None:
                return self.app
            await asyncio.to_thread(_import_pages)  # a second or so of imports, the API answering meanwhile
            from nicegui import app, core
            from nicegui.nicegui import _startup

            from gui.window import Shown, configure_pages

            assert self.server is not None, "the pages open on the server that serves the app"
            app.state.seqdesk = self.ctx
            self.surfaces(app)
            self.shown = Shown(self.browser, self.host, self.port, self.data_dir)
            app.add_api_route(FOCUS_PATH, self.focus, methods=["POST"], include_in_schema=False)
            configure_pages(self.data_dir, self.server)
            await _startup()
            self.app = core.app
            await self.phone_on()
            log.info("pages opened on the app started in the background")
            return core.app

    async def close(self) -> None:
        """NiceGUI's shut-down (its clients, its storage, a window it opened), when the pages were opened."""
        if self.app is None:
            return
        from nicegui.nicegui import _shutdown

        if self.shown is not None and self.shown.window is not None:
            self.shown.window.close()
        await _shutdown()

    async def focus(self, request: Request) -> Any:
        """`POST /api/window/focus`: the person's SeqDesk asks this app to show itself (behind the
        gates): its window (or a tab), or, for `seqdesk --browser`, its address; the pages open first."""
        from gui.api.body import json_response

        try:
            asked = await request.json()
        except ValueError:
            asked = None
        await self.open()
        shown = self.shown
        assert shown is not None
        if isinstance(asked, dict) and asked.get("address_only") is True:  # `seqdesk --browser`: theirs now
            shown.address_given = True
            return json_response({"joined": True, "url": self.url})
        if shown.window is not None and await shown.window.focus():
            return json_response({"focused": True})
        if shown.open(self.url):
            return json_response({"focused": True, "how": "opened its window"})
        return json_response({"focused": False, "reason": f"it runs without a window and this computer has no "
                                                          f"display: open {self.url} in a browser"})


def _import_pages() -> None:
    """What opening the pages imports, in a worker thread: the event loop serves the API meanwhile."""
    import nicegui.nicegui  # noqa: F401 - NiceGUI's app

    import gui.ui.pages.routes  # noqa: F401 - the pages
    import gui.window  # noqa: F401 - the window


class Handover:
    """What the server serves: the light app until the pages open, NiceGUI's app (the API, its gates
    and the pages) from then on; the light app's lifespan throughout (it opened the engine, it closes it)."""

    def __init__(self, light: ASGIApp, pages: Pages) -> None:
        self.light, self.pages = light, pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        opened = self.pages.app
        await (self.light if opened is None or scope["type"] == "lifespan" else opened)(scope, receive, send)


def light_app(ctx: AppContext, pages: Pages, watch: Any) -> Any:
    """The API alone (FastAPI), behind the gates of the person's app, for `ctx`: its lifespan opens
    the engine (as the app's start-up does) and, with `watch`, ends the app once it is unneeded. Any
    other path (a page, its socket) opens the pages first, behind the same gates."""
    from fastapi import FastAPI

    from gui.api import ReadyGate, register_api

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        tasks = [asyncio.ensure_future(start())]
        if watch is not None:
            tasks.append(asyncio.ensure_future(watch(lambda: pages.joined)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            try:
                await pages.close()
            finally:
                await ctx.close()

    async def start() -> None:
        import gc

        try:
            await ctx.open()
        except Exception:  # as NiceGUI's start-up handlers: said in the log, the API answers 503
            log.exception("SeqDesk could not open its engine")
            gc.enable()  # off while it started (`gui.second_launch.spawn_background`)
            return
        if ctx.phone is not None and ctx.phone.wanted:  # phones reach the app through its pages
            await pages.open()
        gc.enable()  # off while it started (`gui.second_launch.spawn_background`): on from here
        gc.freeze()  # what start-up made lives as long as the app, as in the person's app

    app = FastAPI(lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None)
    app.add_middleware(ReadyGate, ctx=ctx)
    register_api(app, engine=ctx.slot.for_api, token=ctx.token, served=ctx.served, notifier=ctx.notifier_for_api,
                 ready=ctx.wait_open)

    async def focus(request: Request) -> Any:
        return await pages.focus(request)

    app.add_api_route(FOCUS_PATH, focus, methods=["POST"], include_in_schema=False)

    async def to_pages(scope: Scope, receive: Receive, send: Send) -> None:
        """A path the API does not serve (it answers `/api/...` itself): the pages', once open."""
        opened = await pages.open()
        await opened(scope, receive, send)

    app.router.default = to_pages
    return app


class WebSocketsWhenAsked(asyncio.Protocol):
    """uvicorn's WebSocket protocol (wsproto's), loaded by the first connection that asks for one: a
    page's socket, once the pages are open. An app served light may never be asked, and loading it as
    the server starts was a thirtieth of that start (uvicorn takes a class as its `ws`)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> WebSocketsWhenAsked:
        from uvicorn.protocols.websockets.wsproto_impl import WSProtocol

        return cast(WebSocketsWhenAsked, WSProtocol(*args, **kwargs))


def serve_background(ctx: AppContext, *, pid: int, host: str, port: int, data_dir: Path, browser: str | None,
                     surfaces: Callable[[Any], None], phone_on: Callable[[], Awaitable[None]]) -> int:
    """Serve the app started in the background for the program `pid` on `host:port` until it ends
    (`until_unneeded`); its exit code (1 when the server could not start: the port taken). `surfaces`
    and `phone_on` open its pages when a person asks for them (`Pages`)."""
    import uvicorn

    from gui.serving import HTTP_PARSER

    assert ctx.url is not None
    pages = Pages(ctx, host=host, port=port, url=ctx.url.rstrip("/") + "/", data_dir=data_dir, browser=browser,
                  surfaces=surfaces, phone_on=phone_on)

    def stop() -> None:
        if pages.server is not None:
            pages.server.should_exit = True

    watch = until_unneeded(ctx, pid, "127.0.0.1" if host in ("0.0.0.0", "::") else host, port, stop)
    config = uvicorn.Config(Handover(light_app(ctx, pages, watch), pages), host=host, port=port, http=HTTP_PARSER,
                            ws=WebSocketsWhenAsked, log_level="warning", lifespan="on")
    pages.server = server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        return 0
    except SystemExit as exc:  # uvicorn exits like this when it cannot bind the port
        return exc.code if isinstance(exc.code, int) else 1
    return 0 if server.started else 1


def until_unneeded(ctx: AppContext, pid: int | None, host: str, port: int, stop: Callable[[], None]) -> Any:
    """For an app started in the background for `pid`: what tells the door that started it that it
    serves (`gui.second_launch.tell_ready`), then ends it (`stop`: its server stops) once that program
    has gone and nothing runs or waits there (`gui.second_launch.close_when_unneeded`); None for a
    person's app."""
    if pid is None:
        return None

    async def busy() -> bool:
        engine = ctx.slot.engine
        return engine is not None and (bool(engine.runner.active_ids()) or bool(await engine.pending()))

    async def watch(joined: Any) -> None:
        from gui.second_launch import START_SECONDS, close_when_unneeded, tell_ready

        try:
            await ctx.wait_open(timeout=START_SECONDS)
        except RuntimeError:
            pass  # it did not open: the door is told nothing, finds no endpoint, and says so
        else:
            await tell_ready(host, port)
        def end() -> None:
            ctx.ending = True  # a door that read the endpoint already is told so (`ReadyGate`)
            if ctx.endpoint is not None:  # one that comes from now on starts the next app at once, which
                ctx.endpoint.unlink(missing_ok=True)  # takes the folder as soon as this one lets go of it
            stop()

        await close_when_unneeded(lambda: {pid, *ctx.clients}, busy, joined, end)

    return watch
