"""A server's list changes under the current protocol (2026-07-28), where they ride a subscription.

Under the legacy protocol a server announces `notifications/tools/list_changed` on its own and the
connection's message handler hears it. Under 2026-07-28 there is no standing stream: the client must
open a `subscriptions/listen` request, whose response is the stream of change events. `follow_changes`
opens it for what the server says can change (tools, prompts), refetches once it is acknowledged (a
change between the first listing and the acknowledgment would otherwise be missed), and calls
`on_change` for each event. A stream that drops is opened again (with a growing pause, so a server
that drops it at once is not hammered); a server that does not serve `subscriptions/listen` (such
as `mcp-server-time`, whose tools never change) is left alone after one try.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal

from mcp import Client, MCPError
from mcp.client.subscriptions import (
    ListenNotSupportedError,
    PromptsListChanged,
    SubscriptionLost,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)

Change = Literal["tools", "prompts"]
_PAUSES = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)


def wanted(client: Client) -> tuple[bool, bool]:
    """(tools, prompts): which lists the server says can change, on a 2026-07-28 connection."""
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False, False
    caps = client.server_capabilities
    return (bool(caps.tools and caps.tools.list_changed), bool(caps.prompts and caps.prompts.list_changed))


async def follow_changes(client: Client, on_change: Callable[[Change], None], *, server: str = "") -> None:
    """Until cancelled (or the server refuses): `on_change("tools")` / `on_change("prompts")` for each
    change the server announces. Returns at once on a legacy connection (its message handler hears them)."""
    tools, prompts = wanted(client)
    if not (tools or prompts):
        return
    failures = 0
    while True:
        try:
            async with client.listen(tools_list_changed=tools, prompts_list_changed=prompts) as subscription:
                failures = 0
                # Whatever changed before the stream was acknowledged is fetched now.
                on_change("tools")
                if prompts:
                    on_change("prompts")
                async for event in subscription:
                    if isinstance(event, ToolsListChanged):
                        on_change("tools")
                    elif isinstance(event, PromptsListChanged):
                        on_change("prompts")
            return  # the server closed the stream gracefully: it will send no more changes
        except ListenNotSupportedError:
            return
        except MCPError as exc:
            if failures == 0 and exc.code in (-32601, -32602):  # method not found / not served here
                log.info("MCP server %s does not serve subscriptions/listen: %s", server, exc.message)
                return
            error: BaseException = exc
        except (SubscriptionLost, TimeoutError) as exc:
            error = exc
        pause = _PAUSES[min(failures, len(_PAUSES) - 1)]
        failures += 1
        log.info("MCP server %s: its change subscription ended (%s); opening it again in %g s", server, error, pause)
        await asyncio.sleep(pause)  # a pause between attempts, not a wait for an event
