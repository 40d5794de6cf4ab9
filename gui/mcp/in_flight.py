"""A connection's tool calls in flight: what its server sends back while one runs is tied to it.

`McpConnection.call_tool` starts and ends each call here; the server's requests and notices find
theirs: a form (`gui.mcp.elicit.ServerForms`) by the call whose task asks (`CURRENT_CALL`), or by
the task it names, or as the only call in flight; a log message goes to every call in flight.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from gui.core.tools import ToolContext


@dataclass(eq=False)
class Call:
    """A tool call in flight: `done` is set once it has ended (nobody can answer its forms any more)."""

    ctx: ToolContext
    done: asyncio.Event = field(default_factory=asyncio.Event)


# The call the current task makes: a request the server sends while it runs is that call's.
CURRENT_CALL: ContextVar[Call | None] = ContextVar("seqdesk_mcp_call", default=None)


class InFlight:
    """The calls in flight over one connection, the tasks they run as, and whether there is none (`idle`)."""

    def __init__(self) -> None:
        self.calls: set[Call] = set()
        self.by_task: dict[str, Call] = {}  # the call each task in flight runs for
        self.idle = asyncio.Event()
        self.idle.set()

    def start(self, ctx: ToolContext) -> tuple[Call, Token[Call | None]]:
        """A call begins in the current task: it is the current call until `end`."""
        call = Call(ctx)
        self.calls.add(call)
        self.idle.clear()
        return call, CURRENT_CALL.set(call)

    def end(self, call: Call, token: Token[Call | None]) -> None:
        """The call ended: its tasks and forms are forgotten (`done`)."""
        CURRENT_CALL.reset(token)
        for task_id in [t for t, c in self.by_task.items() if c is call]:
            del self.by_task[task_id]
        self.calls.discard(call)
        call.done.set()
        if not self.calls:
            self.idle.set()
