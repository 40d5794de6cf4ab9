"""`GET /api/events`: the engine's event bus as server-sent events.

Each bus event becomes `event: <type>`, `data: <the Event as JSON>`, `id: <its seq>`. The stream
opens with a `: connected` comment sent only after the subscription is in place, so a client that
has read it cannot miss a later event (`EventBus.stream` subscribes on its first `__anext__`, which
gives no such moment: hence the subscription here). FastAPI's `EventSourceResponse` adds the
`: ping` heartbeat every 15 s and ends the generator when the client goes away.

An open stream must not keep the server from shutting down (uvicorn waits for open responses
before it runs the shutdown hooks, and never tells a streaming response that it is stopping), so
the generator also ends when the runtime's engine is replaced or closed, or when NiceGUI's server
is exiting; it looks once a second, the only moment nothing else would wake it.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator, Callable

from fastapi.sse import ServerSentEvent

from gui import runtime
from gui.api_body import dumps
from gui.core.engine import Engine
from gui.core.events import Event, EventBus

QUEUE_SIZE = 1000
CHECK_SECONDS = 1.0


def _server_exiting() -> bool:
    module = sys.modules.get("nicegui.server")  # only when NiceGUI's server is what serves us
    server = getattr(getattr(module, "Server", None), "instance", None)
    return bool(getattr(server, "should_exit", False))


def _engine_gone(engine: Engine) -> bool:
    try:
        return runtime.current().engine is not engine
    except RuntimeError:
        return True


class _Subscription:
    """A bounded queue fed by the bus from any thread; counts what it had to drop."""

    def __init__(self, bus: EventBus) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=QUEUE_SIZE)
        self.dropped = 0
        self.unsubscribe = bus.subscribe(self._put)

    def _put(self, event: Event) -> None:
        def deliver() -> None:
            if self.queue.full():
                self.dropped += 1
            else:
                self.queue.put_nowait(event)

        try:
            if threading.get_ident() == getattr(self.loop, "_thread_id", None):
                deliver()
            else:
                self.loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            pass


def _wanted(types: tuple[str, ...], run_id: str | None) -> Callable[[Event], bool]:
    def wanted(event: Event) -> bool:
        if run_id is not None and event.run_id != run_id:
            return False
        return not types or any(event.type == t or event.type.startswith(t.rstrip(".") + ".") for t in types)

    return wanted


async def event_stream(engine: Engine, types: tuple[str, ...] = (),
                       run_id: str | None = None) -> AsyncIterator[ServerSentEvent]:
    wanted = _wanted(types, run_id)
    sub = _Subscription(engine.bus)
    try:
        yield ServerSentEvent(comment="connected", retry=3000)
        while not (_engine_gone(engine) or _server_exiting()):
            try:
                event = await asyncio.wait_for(sub.queue.get(), CHECK_SECONDS)
            except TimeoutError:
                continue
            if sub.dropped:
                yield ServerSentEvent(event="dropped", raw_data=dumps({"count": sub.dropped}))
                sub.dropped = 0
            if wanted(event):
                yield ServerSentEvent(event=event.type, raw_data=dumps(event.to_json()),
                                      id=str(event.seq))
    finally:
        sub.unsubscribe()
