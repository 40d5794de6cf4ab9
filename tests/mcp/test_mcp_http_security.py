"""`seqdesk mcp --http`: no web page and no stranger may call the tools.

The real command is started as a subprocess; requests go over the network to it. On loopback
without a token it still refuses another Host (DNS rebinding) and another Origin; with a token,
every request needs the bearer; off loopback, a missing or short token stops it from starting.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from mcp import Client
from mcp_support import T
from support.waiting import within

TOKEN = "mcp-token-for-the-tests-0123456789"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "SEQDESK_"))}
    return env | {"SEQDESK_MEMORY": "1", **extra}


@asynccontextmanager
async def mcp_http(tmp_path, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[int]:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gui", "mcp", "--http", str(port), *args,
                                                cwd=tmp_path, env=env or _env(), stderr=subprocess.PIPE,
                                                stdout=subprocess.DEVNULL)
    try:
        async with asyncio.timeout(4 * T):
            assert proc.stderr is not None
            while b"Uvicorn running on" not in (line := await proc.stderr.readline()):
                assert line, "the server ended before it listened"
        yield port
    finally:
        proc.terminate()
        await within(proc.wait(), "the stopped server to end")


async def test_on_loopback_without_a_token_another_host_or_origin_is_refused(tmp_path):
    async with mcp_http(tmp_path) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx.AsyncClient(timeout=T) as http:
            rebound = await http.post(url, json=INIT, headers={**ACCEPT, "Host": f"evil.example:{port}"})
            assert rebound.status_code == 421
            assert "host" in rebound.json()["error"]
            cross = await http.post(url, json=INIT, headers={**ACCEPT, "Origin": "https://evil.example"})
            assert cross.status_code == 403
            assert "another site" in cross.json()["error"]
            plain = await http.post(url, content=b'{"jsonrpc":"2.0"}', headers={"Content-Type": "text/plain",
                                                                                 "Accept": ACCEPT["Accept"]})
            assert plain.status_code in (400, 415)
            own = await http.post(url, json=INIT, headers={**ACCEPT, "Origin": f"http://127.0.0.1:{port}"})
            assert own.status_code == 200
        async with Client(url) as client:  # a program without an Origin keeps working
            assert "seq_list" in {t.name for t in (await client.list_tools()).tools}


async def test_with_a_token_every_request_needs_the_bearer(tmp_path):
    async with mcp_http(tmp_path, env=_env(SEQDESK_TOKEN=TOKEN)) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx.AsyncClient(timeout=T) as http:
            assert (await http.post(url, json=INIT, headers=ACCEPT)).status_code == 401
            wrong = await http.post(url, json=INIT, headers={**ACCEPT, "Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            right = await http.post(url, json=INIT, headers={**ACCEPT, "Authorization": f"Bearer {TOKEN}"})
            assert right.status_code == 200


async def test_ten_wrong_tokens_do_not_lock_the_right_one_out(tmp_path):
    async with mcp_http(tmp_path, env=_env(SEQDESK_TOKEN=TOKEN)) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        wrong = {**ACCEPT, "Authorization": "Bearer guess"}
        async with httpx.AsyncClient(timeout=T) as http:
            for _ in range(10):
                assert (await http.post(url, json=INIT, headers=wrong)).status_code == 401
            eleventh = await http.post(url, json=INIT, headers=wrong)
            assert eleventh.status_code == 429 and "too many wrong tokens" in eleventh.json()["error"]
            right = await http.post(url, json=INIT, headers={**ACCEPT, "Authorization": f"Bearer {TOKEN}"})
            assert right.status_code == 200  # the agent is not locked out


async def test_two_hosts_or_a_request_line_naming_another_host_are_refused(tmp_path):
    async with mcp_http(tmp_path) as port:
        answers = await asyncio.gather(*(raw_answer(port, line) for line in (
            f"POST /mcp HTTP/1.1\r\nHost: evil.example:{port}\r\nHost: 127.0.0.1:{port}\r\n",
            f"POST http://evil.example:{port}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n")))
    assert [a.split(b" ", 2)[1] for a in answers] == [b"400", b"421"]


async def raw_answer(port: int, head: str) -> bytes:
    """Send `head` (the request line and headers) and a JSON body over a plain socket; the status line on."""
    body = json.dumps(INIT).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode() + b"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    await writer.drain()
    answer = await within(reader.read(), "the server's answer")
    writer.close()
    return answer


@pytest.mark.parametrize(("args", "env", "said"), [
    (["--host", "0.0.0.0"], {}, "without a token"),
    (["--host", "0.0.0.0", "--token", "short"], {}, "at least 16 characters"),
    (["--host", "0.0.0.0"], {"SEQDESK_TOKEN": "short"}, "at least 16 characters"),
])
def test_off_loopback_a_missing_or_short_token_stops_it_from_starting(tmp_path, args, env, said):
    done = subprocess.run([sys.executable, "-m", "gui", "mcp", "--http", str(free_port()), *args], cwd=tmp_path,
                          env=_env(**env), capture_output=True, text=True, timeout=4 * T)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr
