"""Real local listeners for the notification tests: an HTTP server that records what is POSTed
(answering with the statuses it is told to, in turn) and an SMTP server (aiosmtpd)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any
    at: float  # time.perf_counter() on arrival


@dataclass
class HttpListener:
    """Answers POSTs with `statuses` in turn (then 200); `received` in order of arrival."""

    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    url: str = ""
    _arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"expected {count} POSTs within {timeout:g} s, got {len(self.received)}")
                self._arrived.wait(left)
            return list(self.received)

    async def arrived(self, count: int, timeout: float = 10.0) -> list[Received]:
        return await asyncio.to_thread(self.wait_for, count, timeout)

    def _record(self, item: Received) -> int:
        with self._arrived:
            self.received.append(item)
            self._arrived.notify_all()
            return self.statuses.pop(0) if self.statuses else 200


@contextmanager
def http_listener(statuses: list[int] | None = None) -> Iterator[HttpListener]:
    listener = HttpListener(statuses=list(statuses or []))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
            status = listener._record(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                                               time.perf_counter()))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listener.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class MailBox:
    port: int
    messages: list[Message] = field(default_factory=list)
    _arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"expected {count} emails within {timeout:g} s, got {len(self.messages)}")
                self._arrived.wait(left)
            return list(self.messages)

    async def arrived(self, count: int, timeout: float = 10.0) -> list[Message]:
        return await asyncio.to_thread(self.wait_for, count, timeout)


@contextmanager
def smtp_server() -> Iterator[MailBox]:
    from aiosmtpd.controller import Controller

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    box = MailBox(port)

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
            with box._arrived:
                box.messages.append(message_from_bytes(envelope.content))
                box._arrived.notify_all()
            return "250 OK"

    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


def closed_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
