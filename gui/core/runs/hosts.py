"""Steps on hosts: what the runner asks of whatever carries a step to another machine (`HostCalls`),
and what a surface shows of the hosts a team knows (`HostInfo`, `HostBook`).

A host is a team's worker (`seqdesk worker --name node-a`) that registered with the executor. A step
that says `"on": "node-a"` is approved here, in the app, like any step; only its tool's call runs
there. The call is made at least once: when the host's worker dies after the call began, the call
may have run there, and the step says so (`may_have_run`); it is made again only when its group says
`on_error: retry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from gui.core.marks import N_
from gui.core.tools import ToolContext

HostState = Literal["up", "down", "stopped"]

# A step whose host's worker stopped after its call began: what its record says.
MAY_HAVE_RUN_ON = N_("it may have run on {host} before its worker stopped")
CALLED_AGAIN_ON = N_("called again on {host}: it may have run there before its worker stopped")
NO_HOSTS_HERE = N_("this step runs on the host '{host}', but this app runs sequences in its own process: steps "
                   "on hosts need a team's executor (--executor temporal://…) and `seqdesk worker --name {host}`")


@dataclass(frozen=True)
class HostInfo:
    """One host as the Settings page lists it: `state` is "up" (its worker says it is alive), "down"
    (it stopped saying so: killed, or cut off) or "stopped" (its worker ended and said so)."""

    name: str
    state: HostState
    last_seen: float | None = None  # when its worker last said it was alive (seconds since the epoch)
    since: float | None = None  # when its worker registered
    worker: str | None = None  # the worker's identity (process and machine)


class HostCalls(Protocol):
    async def call(self, host: str, tool: str, args: dict[str, Any], ctx: ToolContext, *, attempt: int,
                   retry: bool) -> Any:
        """Call `tool` with `args` on `host` and give back its result; ToolError when it failed there
        (or its worker stopped: `MAY_HAVE_RUN_ON`). `attempt`: the step's attempt (on_error: retry);
        `retry`: whether a call cut by its worker's end is made again. Cancelled: the call is
        cancelled on the host (its command's process group ended there) before this returns."""
        ...


class HostBook(Protocol):
    async def hosts(self) -> list[HostInfo]:
        """Every host the team knows, by name."""
        ...
