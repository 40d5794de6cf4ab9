"""A client that announces a body and never sends it is cut off, over a real socket to a real server."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI
from support.waiting import wait_until_sync

from gui.api import register_api
from gui.api.request_gate import Served

SECONDS = 0.5


@pytest.fixture
def server(engine_slot) -> Iterator[int]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process(), body_seconds=SECONDS)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    srv = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(srv.serve(),), daemon=True)
    thread.start()
    wait_until_sync(lambda: srv.started, "the server to start", timeout=10, every=0.01)  # uvicorn has no event
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(10)


def test_a_body_shorter_than_its_content_length_gets_408_after_the_time_limit(server):
    with socket.create_connection(("127.0.0.1", server), timeout=10) as sock:
        sock.sendall(b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"sequence\":")
        started = time.monotonic()
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"did not arrive within 0.5 s" in answer and b"12 bytes came of 100" in answer
    assert SECONDS * 0.9 <= waited < SECONDS + 5
