"""http_get against a small HTTP server started by the test on 127.0.0.1 (never an outside address)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gui.core.errors import ToolArgumentError, ToolError
from gui.tools import http_get
from gui.tools.http_get import HttpGet


class Handler(BaseHTTPRequestHandler):
    release: threading.Event  # set by the fixture; /slow waits on it

    def log_message(self, format: str, *args: object) -> None:
        pass

    def reply(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/text":
            self.reply(200, "hello – world".encode())
        elif self.path == "/latin":
            self.reply(200, "café".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif self.path == "/json":
            self.reply(200, b'{"ok": true, "items": [1, 2]}', "application/json")
        elif self.path == "/problem-json":
            self.reply(200, b'{"title": "x"}', "application/problem+json")
        elif self.path == "/bad-json":
            self.reply(200, b"{not json", "application/json")
        elif self.path == "/headers":
            self.reply(200, json.dumps(dict(self.headers)).encode(), "application/json")
        elif self.path == "/missing":
            self.reply(404, b"no such page here")
        elif self.path == "/crash":
            self.reply(500, b"x" * 5000)
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/text")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":
            self.reply(200, b"x" * 2000)
        elif self.path == "/big-chunked":  # no Content-Length: the limit must hold while reading
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"x" * 2000)
            self.close_connection = True
        elif self.path == "/slow":
            self.release.wait(timeout=10)
            self.reply(200, b"late")
        else:
            self.reply(404, b"")


@pytest.fixture
def server() -> Iterator[str]:
    release = threading.Event()
    handler = type("BoundHandler", (Handler,), {"release": release})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


async def get(ctx, **args):
    return await HttpGet().call(args, ctx)


async def test_text_answer_is_the_result(ctx, server):
    assert await get(ctx, url=f"{server}/text") == "hello – world"


async def test_declared_charset_is_used(ctx, server):
    assert await get(ctx, url=f"{server}/latin") == "café"


async def test_json_answer_becomes_an_object(ctx, server):
    assert await get(ctx, url=f"{server}/json") == {"ok": True, "items": [1, 2]}
    assert await get(ctx, url=f"{server}/problem-json") == {"title": "x"}


async def test_invalid_json_is_an_error(ctx, server):
    with pytest.raises(ToolError, match="not valid JSON"):
        await get(ctx, url=f"{server}/bad-json")


async def test_headers_are_sent(ctx, server):
    answer = await get(ctx, url=f"{server}/headers", headers={"X-Token": "abc"})
    assert answer["X-Token"] == "abc"


async def test_redirects_are_followed(ctx, server):
    assert await get(ctx, url=f"{server}/redirect") == "hello – world"


async def test_error_status_reports_status_and_body(ctx, server):
    with pytest.raises(ToolError, match=r"answered 404 Not Found: no such page here"):
        await get(ctx, url=f"{server}/missing")


async def test_error_body_is_only_an_excerpt(ctx, server):
    with pytest.raises(ToolError) as err:
        await get(ctx, url=f"{server}/crash")
    assert "500" in str(err.value)
    assert len(str(err.value)) < 1000


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
async def test_answer_over_the_size_limit_is_refused(ctx, server, monkeypatch, path):
    monkeypatch.setattr(http_get, "MAX_BODY_BYTES", 1000)
    with pytest.raises(ToolError, match="larger than"):
        await get(ctx, url=f"{server}{path}")


async def test_no_answer_in_time_is_a_timeout(ctx, server):
    with pytest.raises(ToolError, match=r"did not answer within 0.2 seconds"):
        await get(ctx, url=f"{server}/slow", timeout=0.2)


async def test_refused_connection_is_a_readable_error(ctx):
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ToolError, match=f"could not connect to http://127.0.0.1:{port}/"):
        await get(ctx, url=f"http://127.0.0.1:{port}/")


def test_tool_asks_first_with_the_server_in_bold_and_runs_in_parallel():
    tool = HttpGet()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("http_get", "tool", True)
    summary = tool.approval_summary({"url": "https://evil.example:8443/up?data=secret"})
    assert summary.highlight == "evil.example"
    assert summary.text == "Send a request to evil.example: https://evil.example:8443/up?data=secret"
    assert "with extra headers" in tool.approval_summary({"url": "http://a.b/", "headers": {"X": "1"}}).text


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://127.0.0.1/file"}, "url"),
        ({"url": "file:///etc/passwd"}, "url"),
        ({"url": "127.0.0.1/page"}, "url"),
        ({"url": "http://"}, "url"),
        ({"url": "http://127.0.0.1/", "timeout": 0}, "timeout"),
        ({"url": "http://127.0.0.1/", "headers": ["X-A: b"]}, "headers"),
        ({"url": "http://127.0.0.1:99999/"}, "url"),
        ({"url": "http://[::1/"}, "url"),
        ({"url": "http://127.0.0.1/", "headers": {"bad name": "x"}}, "headers"),
        ({"url": "http://127.0.0.1/", "headers": {"X-A": "one\ntwo"}}, "headers"),
        ({"url": "http://127.0.0.1/", "method": "POST"}, "method"),
    ],
)
async def test_bad_arguments_name_the_field(ctx, args, field):
    with pytest.raises(ToolArgumentError) as err:
        await get(ctx, **args)
    assert field in [path for path, _ in err.value.problems]
    assert "Value error" not in str(err.value)
