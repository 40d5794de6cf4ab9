"""The request gate reads the request as the server and the handlers behind it do: a header it decides
on sent twice, or a request line naming another host, is refused before anything acts.

In process (the gate on its own, scopes as uvicorn builds them) and over raw sockets to a real uvicorn
serving the API as the app serves it (`HTTP_PARSER`), which is where an absolute-form request line
and a second Host header really arrive.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
import websockets
from fastapi import FastAPI, WebSocket
from support.waiting import wait_until_sync, within

from gui.api import register_api
from gui.api.request_gate import RequestGate, Served
from gui.serving import HTTP_PARSER

T = 10.0


# -- in process ------------------------------------------------------------------------------------

async def through_gate(headers: list[tuple[bytes, bytes]], path: str = "/api/runs", kind: str = "http",
                       extensions: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """What the gate sends for a request, and the scope the app behind it saw (None: not reached)."""
    reached: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"} if kind == "websocket" else {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope: dict[str, Any] = {"type": kind, "method": "GET", "path": path.split("?")[0],
                             "raw_path": path.split("?")[0].encode(), "query_string": b"", "headers": headers,
                             "scheme": "ws" if kind == "websocket" else "http", "extensions": extensions or {}}
    await RequestGate(app, served=Served.at("127.0.0.1", 8000))(scope, receive, send)
    return sent, (reached[0] if reached else None)


def status_of(sent: list[dict[str, Any]]) -> int:
    return sent[0]["status"]


def said(sent: list[dict[str, Any]]) -> str:
    return json.loads(sent[1]["body"])["error"]


OURS = (b"host", b"127.0.0.1:8000")


@pytest.mark.parametrize("hosts", [[b"evil.example:8000", b"127.0.0.1:8000"], [b"127.0.0.1:8000", b"evil.example"],
                                   [b"127.0.0.1:8000", b"127.0.0.1:8000"]])
async def test_more_than_one_host_header_is_400_whatever_their_order(hosts):
    sent, reached = await through_gate([(b"host", h) for h in hosts])
    assert reached is None
    assert status_of(sent) == 400 and said(sent) == "the request has more than one Host header: send it once"


@pytest.mark.parametrize("twice", [b"origin", b"content-type"])
async def test_the_other_headers_the_gate_decides_on_are_refused_twice_too(twice):
    sent, reached = await through_gate([OURS, (twice, b"http://127.0.0.1:8000"), (twice, b"http://evil.example")])
    assert reached is None and status_of(sent) == 400


@pytest.mark.parametrize("line", ["http://evil.example/api/runs", "http://evil.example:8000/api/runs",
                                  "HTTP://EVIL.example/api/runs", "http://user@127.0.0.1:8000/api/runs",
                                  "http://127.0.0.1:8001/api/runs", "https://127.0.0.1/api/runs"])
async def test_a_request_line_naming_another_host_is_421_even_with_our_host_header(line):
    sent, reached = await through_gate([OURS], path=line)
    assert reached is None
    assert status_of(sent) == 421 and "named in the request line" in said(sent)


async def test_a_request_line_naming_the_app_itself_is_served_as_its_path():
    sent, reached = await through_gate([OURS], path="http://127.0.0.1:8000/api/r%75ns")
    assert sent == [] and reached is not None
    assert (reached["path"], reached["raw_path"]) == ("/api/runs", b"/api/r%75ns")


@pytest.mark.parametrize("line", ["*", "api/runs", "mailto:me@example.com"])
async def test_a_request_line_that_is_not_a_path_is_400(line):
    sent, reached = await through_gate([OURS], path=line)
    assert reached is None and status_of(sent) == 400


async def test_a_refused_websocket_gets_the_status_and_sentence_where_the_server_offers_a_denial():
    sent, reached = await through_gate([(b"host", b"evil.example")], path="/_nicegui_ws/socket.io/",
                                       kind="websocket", extensions={"websocket.http.response": {}})
    assert reached is None
    assert [m["type"] for m in sent] == ["websocket.http.response.start", "websocket.http.response.body"]
    assert status_of(sent) == 421 and "does not answer to the host" in said(sent)
    sent, _ = await through_gate([(b"host", b"evil.example")], path="/_nicegui_ws/socket.io/", kind="websocket")
    assert sent == [{"type": "websocket.close", "code": 1008, "reason": sent[0]["reason"]}]  # else closed: 403


# -- a real server ---------------------------------------------------------------------------------

@pytest.fixture
def server(engine_slot) -> Iterator[int]:
    """The API and a WebSocket route behind the gates, served by uvicorn as the app serves them."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = FastAPI()

    @app.websocket("/ws")
    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        await ws.send_text(await ws.receive_text())
        await ws.close()

    register_api(app, engine=engine_slot.for_api, token=None, served=Served.at("127.0.0.1", port))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
                            http=HTTP_PARSER, ws="wsproto")
    srv = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(srv.serve(),), daemon=True)
    thread.start()
    wait_until_sync(lambda: srv.started, "the server to start", timeout=T, every=0.01)  # uvicorn has no event
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(T)


def raw(port: int, head: str) -> tuple[int, bytes]:
    """Send a request (request line and headers, no body) over a plain socket: its status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=T) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    return status, answer.partition(b"\r\n\r\n")[2]


def test_over_a_socket_two_host_headers_are_400(server):
    status, _ = raw(server, f"GET /api/runs HTTP/1.1\nHost: evil.example\nHost: 127.0.0.1:{server}\n")
    assert status == 400
    status, _ = raw(server, f"GET /api/runs HTTP/1.1\nHost: 127.0.0.1:{server}\nHost: evil.example\n")
    assert status == 400


def test_over_a_socket_a_request_line_naming_another_host_is_421_and_our_own_is_served(server):
    status, body = raw(server, f"GET http://evil.example:{server}/api/runs HTTP/1.1\nHost: 127.0.0.1:{server}\n")
    assert status == 421 and "named in the request line" in json.loads(body)["error"]
    status, body = raw(server, f"GET http://127.0.0.1:{server}/api/runs HTTP/1.1\nHost: 127.0.0.1:{server}\n")
    assert status == 200 and json.loads(body) == []
    status, _ = raw(server, f"GET /api/runs HTTP/1.1\nHost: 127.0.0.1:{server}\n")
    assert status == 200


async def test_over_a_socket_a_websocket_is_refused_with_a_status_at_once_and_an_allowed_one_works(server):
    url = f"ws://127.0.0.1:{server}/ws"
    started = time.monotonic()
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(url, origin=websockets.Origin("http://evil.example"), open_timeout=T)
    assert refused.value.response.status_code == 403
    assert "another site" in json.loads(bytes(refused.value.response.body))["error"]
    with pytest.raises(websockets.InvalidStatus) as refused:  # a rebound name, connected to this app
        await websockets.connect(f"ws://evil.example:{server}/ws", host="127.0.0.1", port=server, open_timeout=T)
    assert refused.value.response.status_code == 421
    assert time.monotonic() - started < 1.0
    async with websockets.connect(url, origin=websockets.Origin(f"http://127.0.0.1:{server}"), open_timeout=T) as ws:
        await ws.send("hello")
        assert await within(ws.recv(), "the echo of hello") == "hello"
