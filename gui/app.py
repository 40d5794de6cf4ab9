"""The one place that wires SeqDesk together: engine, HTTP API, pages, and the window.

`create_app` registers everything on NiceGUI's FastAPI app and opens the engine at start-up;
`start_app` is what the `seqdesk` command runs.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import Any

from gui import runtime

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def create_app(*, token: str | None = None, data_dir: Path | None = None, memory: bool | None = None,
               url: str | None = None) -> None:
    """Register the API, the pages and the start-up/shut-down hooks (once per NiceGUI app)."""
    from nicegui import app

    if any(getattr(route, "path", None) == "/api/health" for route in app.routes):
        return  # already registered on this app (NiceGUI's test reset makes a fresh one)

    from gui.api import register_api
    from gui.ui import register_pages

    async def startup() -> None:
        rt = await runtime.open_runtime(data_dir, memory=memory)
        rt.token = token
        runtime.set_current(rt)
        import gc

        gc.freeze()  # what start-up made lives for the whole session: keep it out of full collections
        if url and rt.data_dir is not None:  # lets `seqdesk run` and `seqdesk mcp` reach this app
            from gui.ops import write_endpoint

            rt.extras["endpoint"] = write_endpoint(rt.data_dir, url, token)

    async def shutdown() -> None:
        try:
            rt = runtime.current()
        except RuntimeError:
            return
        endpoint = rt.extras.get("endpoint")
        if isinstance(endpoint, Path):
            endpoint.unlink(missing_ok=True)
        await rt.close()
        runtime.set_current(None)

    app.on_startup(startup)
    app.on_shutdown(shutdown)
    app.add_middleware(ReadyGate)
    register_api(app, token=token)
    register_pages(token=token)


class ReadyGate:
    """Holds each request until the engine is open: NiceGUI opens it in a background task at start-up,
    so the first page could otherwise arrive a moment before it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and not str(scope.get("path", "")).startswith("/_nicegui/"):
            try:
                await runtime.wait_current(timeout=30)
            except RuntimeError:
                pass  # the API answers 503 itself; pages show NiceGUI's error
        await self.app(scope, receive, send)


def start_app(args: argparse.Namespace) -> int:
    host = args.host or "127.0.0.1"
    token = args.token or os.environ.get("SEQDESK_TOKEN") or None
    if not is_loopback(host) and not token:
        print(f"seqdesk: refusing to listen on {host} without a token. SeqDesk runs shell commands, so an open "
              "port without one would let anyone on the network run commands. Give --token SECRET (or set "
              "SEQDESK_TOKEN), or leave --host out to stay on 127.0.0.1.", file=sys.stderr)
        return 2
    port = args.port or free_port(host if is_loopback(host) else "127.0.0.1")
    data_dir = Path(os.environ["SEQDESK_DATA"]) if os.environ.get("SEQDESK_DATA") else None
    from gui.store.datadir import data_dir as default_data_dir

    try:
        data_dir = data_dir or default_data_dir()
    except Exception as exc:  # noqa: BLE001 - shown to the person, never a traceback
        print(f"seqdesk: {exc}", file=sys.stderr)
        return 2
    from gui.store.lock import DataFolderInUseError
    from gui.store.open import hold_lock

    try:  # refuse early, before the server starts, with a clear message
        hold_lock(data_dir)
    except DataFolderInUseError as exc:
        print(f"seqdesk: {exc}", file=sys.stderr)
        return 2
    local = "127.0.0.1" if host in ("0.0.0.0", "::") or is_loopback(host) else host
    create_app(token=token, data_dir=data_dir, url=f"http://{local}:{port}")
    from gui.window import run_ui

    return run_ui(host=host, port=port, browser_only=args.browser, token=token)
