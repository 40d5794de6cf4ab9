"""`GET /api/events`: the engine's event bus as server-sent events.

Each bus event becomes `event: <type>`, `data: <the Event as JSON>`, `id: <its seq>`. The stream
opens with a `: connected` comment sent only after the subscription is in place (`EventBus.stream`
subscribes when it is made), so a client that has read it cannot miss a later event. Where FastAPI
has `fastapi.sse` (the installed 0.165 does), its `EventSourceResponse` writes the events and a
`: ping` heartbeat every 15 s; with an older FastAPI (NiceGUI accepts 0.109 on) the same wire format
and heartbeat are written here into a plain streaming response. Either way the generator ends when
the client goes away.

An open stream must not keep the server from shutting down (uvicorn waits for open responses
before it runs the shutdown hooks, and never tells a streaming response that it is stopping), so
the generator also ends when the engine closes, or when NiceGUI's server
is exiting; it looks once a second, the only moment nothing else would wake it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Query
from fastapi.responses import Response, StreamingResponse

from gui.api.body import dumps
from gui.api.shared import OpenEngine
from gui.core.door import Engine
from gui.core.events import Event

try:
    from fastapi.sse import EventSourceResponse, ServerSentEvent
except ImportError:  # an older FastAPI
    EventSourceResponse = ServerSentEvent = None  # type: ignore[assignment,misc]

QUEUE_SIZE = 1000
CHECK_SECONDS = 1.0
HEARTBEAT_SECONDS = 15.0


def _server_exiting() -> bool:
    module = sys.modules.get("nicegui.server")  # only when NiceGUI's server is what serves us
    server = getattr(getattr(module, "Server", None), "instance", None)
    return bool(getattr(server, "should_exit", False))


def _engine_gone(engine: Engine) -> bool:
    return engine.closed


def _wanted(types: tuple[str, ...], run_id: str | None) -> Callable[[Event], bool]:
    def wanted(event: Event) -> bool:
        if run_id is not None and event.run_id != run_id:
            return False
        return not types or any(event.type == t or event.type.startswith(t.rstrip(".") + ".") for t in types)

    return wanted


Item = dict[str, Any]  # the fields of one server-sent event: event, data, id, comment, retry


async def event_stream(engine: Engine, types: tuple[str, ...] = (), run_id: str | None = None,
                       heartbeat: float | None = None) -> AsyncIterator[Item]:
    """The events as SSE fields; with `heartbeat`, a `ping` comment after that many quiet seconds."""
    wanted = _wanted(types, run_id)
    stream = engine.events(QUEUE_SIZE)
    loop = asyncio.get_running_loop()
    try:
        yield {"comment": "connected", "retry": 3000}
        last = loop.time()
        while not (_engine_gone(engine) or _server_exiting()):
            try:
                event = await asyncio.wait_for(anext(stream), CHECK_SECONDS if heartbeat is None
                                               else max(0.0, min(CHECK_SECONDS, last + heartbeat - loop.time())))
            except TimeoutError:
                if heartbeat is not None and loop.time() - last >= heartbeat:
                    last = loop.time()
                    yield {"comment": "ping"}
                continue
            if stream.dropped:
                yield {"event": "dropped", "data": dumps({"count": stream.dropped})}
                stream.dropped = 0
            if wanted(event):
                last = loop.time()
                yield {"event": event.type, "data": dumps(event.to_json()), "id": str(event.seq)}
    finally:
        stream.close()


def encode(item: Item) -> bytes:
    lines = [f": {item['comment']}"] if "comment" in item else []
    lines += [f"{key}: {item[key]}" for key in ("event", "data", "id", "retry") if key in item]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


_DESCRIPTION = "comma-separated prefixes, e.g. run.,interaction."


async def sse_events(eng: OpenEngine, types: str = Query("", description=_DESCRIPTION),
                     run_id: str | None = None) -> Any:
    """Run, group, tool, interaction and sequence events as they happen."""
    async for item in event_stream(eng, _types(types), run_id):
        yield ServerSentEvent(raw_data=item.pop("data", None), **item)


async def streamed_events(eng: OpenEngine, types: str = Query("", description=_DESCRIPTION),
                          run_id: str | None = None) -> StreamingResponse:
    """Run, group, tool, interaction and sequence events as they happen."""
    items = event_stream(eng, _types(types), run_id, heartbeat=HEARTBEAT_SECONDS)
    return StreamingResponse((encode(item) async for item in items), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def endpoint() -> tuple[Callable[..., Any], type[Response]]:
    """`GET /api/events` as this FastAPI can serve it: its own `EventSourceResponse` where it has one
    (`sse_events`), else the stream written here (`streamed_events`)."""
    if EventSourceResponse is not None:
        return sse_events, EventSourceResponse
    return streamed_events, StreamingResponse


def _types(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())
