"""What an agent can read without running anything: each saved sequence's document and each run's
record, as MCP resources (`seqdesk://sequences/{name}`, `seqdesk://runs/{run_id}`).

`resources/list` names every saved sequence and the latest runs; both templates read any of them.
A change the agent makes through this server (a sequence saved or deleted, a run started or ended)
is announced as `resources` list-changed on the subscription bus (2026-07-28 `subscriptions/listen`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.subscriptions import ResourcesListChanged, SubscriptionBus
from mcp_types import ListResourcesResult, PaginatedRequestParams, Resource

from gui.core.door import Operations
from gui.core.errors import SeqDeskError

SEQUENCE = "seqdesk://sequences/{name}"
RUN = "seqdesk://runs/{run_id}"
LISTED_RUNS = 50
JSON = "application/json"
OpenOps = Callable[[], Awaitable[Operations]]


def sequence_uri(name: str) -> str:
    return "seqdesk://sequences/" + quote(name, safe="")


def run_uri(run_id: str) -> str:
    return "seqdesk://runs/" + quote(run_id, safe="")


def serve_resources(server: MCPServer, operations: OpenOps) -> None:
    """Register both templates and the listing on `server`."""

    @server.resource(SEQUENCE, name="sequence", title="A saved sequence", mime_type=JSON,
                     description="The document of a saved sequence, as seq_create takes it")
    async def read_sequence(name: str) -> str:
        try:
            doc = await (await operations()).get_sequence_document(name)
        except SeqDeskError as exc:
            raise ResourceError(str(exc)) from None
        if doc is None:
            raise ResourceError(f"there is no saved sequence named '{name}'")
        return json.dumps(doc, ensure_ascii=False, indent=2)

    @server.resource(RUN, name="run", title="A run's record", mime_type=JSON,
                     description="The record of a run: its status, each group's and tool's, outputs and cause")
    async def read_run(run_id: str) -> str:
        try:
            record = await (await operations()).find_run(run_id)
        except SeqDeskError as exc:
            raise ResourceError(str(exc)) from None
        if record is None:
            raise ResourceError(f"there is no run {run_id}")
        return json.dumps(record.to_summary_json(), ensure_ascii=False, indent=2)

    async def list_resources(ctx: ServerRequestContext[Any, Any],
                             params: PaginatedRequestParams | None) -> ListResourcesResult:
        try:
            ops = await operations()
            sequences = await ops.list_sequences()
            runs = await ops.list_runs(limit=LISTED_RUNS)
        except SeqDeskError:
            return ListResourcesResult(resources=[])  # the app is gone: nothing to read now
        listed = [Resource(uri=sequence_uri(s["name"]), name=s["name"], title=f"Sequence {s['name']}",
                           description=s.get("description") or None, mime_type=JSON) for s in sequences]
        listed += [Resource(uri=run_uri(r.run_id), name=r.run_id, title=f"Run {r.run_id} of {r.sequence} ({r.status})",
                            mime_type=JSON) for r in runs]
        return ListResourcesResult(resources=listed)

    server._lowlevel_server.add_request_handler("resources/list", PaginatedRequestParams, list_resources)


async def announce(bus: SubscriptionBus) -> None:
    """The list of resources changed (a sequence saved or deleted, a run started or ended)."""
    await bus.publish(ResourcesListChanged())
