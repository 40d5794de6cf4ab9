"""Completion (`completion/complete`) of what an agent types into SeqDesk's resource templates: the
names of saved sequences (`seqdesk://sequences/{name}`) and the ids of runs (`seqdesk://runs/{run_id}`),
the ones that start with what was typed (any case), at most `MOST`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp.server.mcpserver import MCPServer
from mcp_types import Completion, CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference

from gui.core.door import Operations
from gui.core.errors import SeqDeskError
from gui.mcp.resources import LISTED_RUNS, RUN, SEQUENCE

MOST = 100  # the protocol's limit of values in one answer
OpenOps = Callable[[], Awaitable[Operations]]


def starting(values: list[str], typed: str) -> Completion:
    found = [v for v in values if v.lower().startswith(typed.lower())]
    return Completion(values=found[:MOST], total=len(found), has_more=len(found) > MOST)


def serve_completion(server: MCPServer, operations: OpenOps) -> None:
    @server.completion()
    async def complete(ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument,
                       context: CompletionContext | None) -> Completion | None:
        if not isinstance(ref, ResourceTemplateReference):
            return None
        try:
            ops = await operations()
            if ref.uri == SEQUENCE and argument.name == "name":
                return starting(sorted(s["name"] for s in await ops.list_sequences()), argument.value)
            if ref.uri == RUN and argument.name == "run_id":
                return starting([r.run_id for r in await ops.list_runs(limit=LISTED_RUNS)], argument.value)
        except SeqDeskError:
            return None  # the app is gone: nothing to suggest
        return None
