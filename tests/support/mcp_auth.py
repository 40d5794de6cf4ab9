"""Start the test servers of `auth_server.py` as real processes on loopback, and drive a sign-in.

`auth_server(mode, *args)` yields the server's base URL once uvicorn listens; `stats(base)` reads
what it was asked. `follow_sign_in(url)` plays the person's browser against the test
authorization server (which consents at once): it returns the callback address it was sent back
to, with the `code` and `state` in it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from gui.core.tools.registry import ToolContext
from gui.mcp.config import McpServerConfig
from support.app import free_port
from support.waiting import within

HERE = Path(__file__).parents[1] / "mcp"  # auth_server.py
T = 15.0


@asynccontextmanager
async def auth_server(mode: str, *args: str) -> AsyncIterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = await asyncio.create_subprocess_exec(sys.executable, str(HERE / "auth_server.py"), mode, str(port), *args,
                                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        async with asyncio.timeout(4 * T):
            assert proc.stderr is not None
            while b"Uvicorn running on" not in (line := await proc.stderr.readline()):
                assert line, "the test server ended before it listened"
        drain = asyncio.ensure_future(_drain(proc))
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), T)
        except TimeoutError:
            proc.kill()
            await within(proc.wait(), "the killed auth server to end", timeout=T)
            raise
    drain.cancel()


async def _drain(proc: asyncio.subprocess.Process) -> None:
    assert proc.stderr is not None
    while await proc.stderr.readline():
        pass


async def stats(base: str) -> dict[str, int]:
    async with httpx.AsyncClient(timeout=T) as http:
        response = await http.get(f"{base}/stats")
    response.raise_for_status()
    data: Any = response.json()
    return {str(k): int(v) for k, v in data.items()}


async def follow_sign_in(url: str) -> str:
    """The person's browser on the sign-in page: the address it is sent back to."""
    async with httpx.AsyncClient(timeout=T) as http:
        response = await http.get(url)
        assert response.status_code == 302, response.text
        return response.headers["location"]


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


REDIRECT = "http://127.0.0.1:9/oauth/callback"  # the app's callback; the test plays the browser


CTX = ToolContext(run_id="r", tool_call_id="r-0-0", tool_name="x")


def http_config(name: str, url: str, **fields: object) -> McpServerConfig:
    return McpServerConfig.model_validate({"name": name, "transport": "http", "url": url, **fields})
