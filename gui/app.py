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
from gui.api.request_gate import Served
from gui.core.engine import Engine
from gui.core.operations import Operations

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


MIN_TOKEN_LENGTH = 16


def token_problem(host: str, token: str | None) -> str | None:
    """Why the app (or `seqdesk mcp --http`) must not listen on `host` with `token`; None when it may."""
    if is_loopback(host):
        return None
    if not token:
        return (f"refusing to listen on {host} without a token. SeqDesk runs shell commands, so an open port "
                "without one would let anyone on the network run commands. Give --token SECRET (or set "
                "SEQDESK_TOKEN), or leave --host out to stay on 127.0.0.1.")
    if len(token) < MIN_TOKEN_LENGTH:
        return (f"refusing to listen on {host} with a token of {len(token)} characters: anyone on the network "
                f"could guess it and run commands on this computer. Use at least {MIN_TOKEN_LENGTH} characters "
                "(for example: python -c \"import secrets; print(secrets.token_urlsafe(24))\").")
    return None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def create_app(*, served: Served, token: str | None = None, data_dir: Path | None = None,
               memory: bool | None = None, url: str | None = None) -> None:
    """Register the API, the pages and the start-up/shut-down hooks (once per NiceGUI app).

    `served` is where the app answers (its hosts and its pages' origins): the request gate refuses
    every other Host and Origin, and NiceGUI's socket.io accepts only those origins.
    """
    from nicegui import app, core

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
            from gui.remote import write_endpoint

            rt.extras["endpoint"] = write_endpoint(rt.data_dir, url, token_required=token is not None)

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
    core.sio.eio.cors_allowed_origins = served.origins  # NiceGUI's default "*" lets every site in
    app.add_middleware(ReadyGate)
    register_api(app, engine=_api_engine, token=token, served=served)
    register_pages(token=token)


class EngineSlot:
    """Where the engine is once it is open: the app opens it after its routes are registered, so
    they are handed this slot, which answers 503 until then (and after the engine has closed)."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine

    def get(self) -> Engine:
        if self.engine is None:
            raise RuntimeError("SeqDesk's engine is not open yet")
        return self.engine

    def for_api(self) -> Engine:
        from gui.api.body import BadRequest

        try:
            return self.get()
        except RuntimeError as exc:
            raise BadRequest(503, f"{exc}: try again in a moment") from None


def _api_engine() -> Engine:
    """The runtime's engine for the API's handlers; 503 while the app is still opening it."""
    try:
        return EngineSlot(runtime.current().engine).for_api()
    except RuntimeError:
        return EngineSlot().for_api()


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


async def open_operations(folder: Path | None = None) -> Operations:
    """The door for the CLI and `seqdesk mcp`: the engine opened here on the data folder, or, when
    the app holds the folder, the app itself through its HTTP API (its inbox then answers)."""
    from gui.remote import remote_for
    from gui.store.datadir import data_dir
    from gui.store.lock import DataFolderInUseError

    if os.environ.get("SEQDESK_MEMORY") == "1":
        rt = await runtime.open_runtime(memory=True, mcp_wait=10.0)
    else:
        folder = folder or data_dir()
        try:
            rt = await runtime.open_runtime(folder, memory=False, mcp_wait=10.0)
        except DataFolderInUseError:
            remote = remote_for(folder, os.environ.get("SEQDESK_TOKEN") or None)
            if remote is None:
                raise
            return remote

    async def close_parts() -> None:
        for closer in reversed(rt.closers):
            result = closer()
            if result is not None:
                await result

    rt.engine.on_close(close_parts)
    return rt.engine


def start_app(args: argparse.Namespace) -> int:
    host = args.host or "127.0.0.1"
    token = args.token or os.environ.get("SEQDESK_TOKEN") or None
    problem = token_problem(host, token)
    if problem:
        print(f"seqdesk: {problem}", file=sys.stderr)
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
    create_app(served=Served.at(host, port), token=token, data_dir=data_dir, url=f"http://{_url_host(local)}:{port}")
    from gui.window import run_ui

    return run_ui(host=host, port=port, browser_only=args.browser, token=token)
