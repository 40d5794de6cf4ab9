"""The HTTP API read as it streams: httpx's ASGI transport buffers a response to its end, and an
event stream (`GET /api/events`) has none, so `StreamingTransport` hands the body over chunk by chunk
and disconnects the client when the response is closed; `read_sse` reads the events off its lines.
Every wait is bounded by `T`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
from fastapi import FastAPI

from support.waiting import within

T = 5.0


class StreamingTransport(httpx.AsyncBaseTransport):
    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.task: asyncio.Task[None] | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = b"".join([part async for part in request.stream])
        started: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        gone = asyncio.Event()
        delivered = False

        async def receive() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                started.set_result(message)
            elif message["type"] == "http.response.body":
                await chunks.put(message.get("body", b""))
                if not message.get("more_body"):
                    await chunks.put(None)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
                 "headers": list(request.headers.raw), "scheme": "http", "path": request.url.path,
                 "raw_path": request.url.raw_path.split(b"?")[0], "query_string": request.url.query,
                 "server": ("test", 80), "client": ("127.0.0.1", 1), "root_path": ""}
        task = self.task = asyncio.create_task(self.app(scope, receive, send))
        head = await within(started, "the app's response head", timeout=T)

        class Body(httpx.AsyncByteStream):
            async def __aiter__(self) -> AsyncIterator[bytes]:
                while (chunk := await chunks.get()) is not None:
                    yield chunk

            async def aclose(self) -> None:
                gone.set()
                await within(task, "the app to end after the body was closed", timeout=T)

        return httpx.Response(head["status"], headers=head.get("headers", []), stream=Body())


async def read_sse(lines: AsyncIterator[str], count: int) -> list[dict[str, str]]:
    """The next `count` events; a comment comes as {"comment": ...}."""
    events: list[dict[str, str]] = []
    current: dict[str, str] = {}
    async with asyncio.timeout(T):
        async for line in lines:
            if line == "":
                if current:
                    events.append(current)
                    current = {}
                if len(events) == count:
                    return events
            elif line.startswith(":"):
                current["comment"] = line[1:].strip()
            else:
                key, _, value = line.partition(": ")
                current[key] = value
    return events
