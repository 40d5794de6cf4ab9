"""NiceGUI's HTTP middlewares swapped for plain ASGI ones: the same headers, and an answer that leaves
before the work it woke runs (`gui.api.plain_middleware`)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse
from nicegui import core
from nicegui.middlewares import RedirectWithPrefixMiddleware, SetCacheControlMiddleware
from nicegui.version import __version__
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.gzip import GZipMiddleware

from gui.api.plain_middleware import GZIP_LEVEL, use_plain_middleware

ASSET = f"/_nicegui/{__version__}/static/app.js"


def nicegui_like_app(order: list[str]) -> FastAPI:
    """An app with the middlewares `ui.run` adds, in its order, and routes that show what they do."""
    app = FastAPI()

    @app.get("/go")
    async def go() -> RedirectResponse:
        return RedirectResponse("/there", status_code=303)

    @app.get(ASSET)
    async def asset() -> PlainTextResponse:
        return PlainTextResponse("x" * 2000)

    @app.get("/wake")
    async def wake() -> JSONResponse:
        async def woken() -> None:
            order.append("woken")

        asyncio.get_running_loop().create_task(woken())
        return JSONResponse({"ok": True})

    app.add_middleware(GZipMiddleware)
    app.add_middleware(RedirectWithPrefixMiddleware)
    app.add_middleware(SetCacheControlMiddleware)
    return app


async def test_the_swapped_middlewares_keep_the_prefix_the_cache_header_and_gzip(monkeypatch):
    monkeypatch.setattr(core.app.config, "cache_control_directives", "public, max-age=60", raising=False)  # ui.run's
    app = nicegui_like_app([])
    use_plain_middleware(app)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        moved = await client.get("/go", headers={"X-Forwarded-Prefix": "/seqdesk"})
        asset = await client.get(ASSET, headers={"Accept-Encoding": "gzip"})
    assert moved.status_code == 303 and moved.headers["location"] == "/seqdesk/there"
    assert asset.headers["cache-control"] == "public, max-age=60"
    assert asset.headers["content-encoding"] == "gzip" and asset.text == "x" * 2000
    assert not [m.cls for m in app.user_middleware if issubclass(m.cls, BaseHTTPMiddleware)]  # type: ignore[arg-type]
    [gzip] = [m for m in app.user_middleware if m.cls is GZipMiddleware]
    assert gzip.kwargs == {"compresslevel": GZIP_LEVEL}


async def call(app: FastAPI, path: str, order: list[str]) -> None:
    scope: dict[str, Any] = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                             "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
                             "query_string": b"", "headers": [(b"host", b"test")], "client": ("127.0.0.1", 1),
                             "server": ("test", 80)}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body"):
            order.append("sent")

    await app(scope, receive, send)


async def test_an_answer_is_sent_before_the_work_it_woke_runs():
    order: list[str] = []
    before = nicegui_like_app(order)
    await call(before, "/wake", order)
    await asyncio.sleep(0)
    assert order == ["woken", "sent"]  # NiceGUI's own: the woken task ran while the answer was handed over

    order.clear()
    after = nicegui_like_app(order)
    use_plain_middleware(after)
    await call(after, "/wake", order)
    await asyncio.sleep(0)
    assert order == ["sent", "woken"]
