"""A small MCP server for the client tests: it asks for typed input, and it can die on request.

Run as a script over stdio (`python tests/mcp/elicit_server.py`). `order` asks through a resolver,
which works in both protocol modes; `legacy_order` and `open_page` use `ctx.elicit` /
`ctx.elicit_url`, which only the legacy protocol carries.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp import UrlElicitationRequiredError
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import ElicitRequestURLParams, ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("elicit-test")


class Order(BaseModel):
    name: str = Field(description="Who the order is for")
    qty: int = Field(default=1, description="How many")
    price: float = 1.5
    gift: bool = False
    size: Literal["S", "M", "L"] = "M"


def _typed(data: BaseModel) -> dict[str, Any]:
    values = data.model_dump()
    return {"values": values, "types": {k: type(v).__name__ for k, v in values.items()}}


def ask_order(item: str) -> Elicit[Order]:
    return Elicit(f"Details for **{item}**", Order)


@server.tool(description="Order an item; asks who it is for and how many")
async def order(item: str, details: Annotated[ElicitationResult[Order], Resolve(ask_order)]) -> dict[str, Any]:
    if isinstance(details, AcceptedElicitation):
        return {"action": "accept", **_typed(details.data)}
    return {"action": details.action}


@server.tool(description="Order an item, asking with ctx.elicit (legacy protocol only)")
async def legacy_order(item: str, ctx: Context) -> dict[str, Any]:
    result = await ctx.elicit(f"Details for {item}", Order)
    if isinstance(result, AcceptedElicitation):
        return {"action": "accept", **_typed(result.data)}
    return {"action": result.action}


@server.tool(description="Ask the person to open a page (URL mode, legacy protocol only)")
async def open_page(ctx: Context) -> str:
    result = await ctx.elicit_url("Sign in to continue", "https://example.com/login", "login-1")
    return result.action


_PAGES_OPENED: list[str] = []


@server.tool(description="Needs a page opened first: answers -32042 (URL elicitation required) until it was")
def after_page() -> str:
    if not _PAGES_OPENED:
        _PAGES_OPENED.append("connect-1")  # the person opened it: the next call goes through
        raise UrlElicitationRequiredError([ElicitRequestURLParams(
            message="Connect your account first", url="https://example.com/connect", elicitation_id="connect-1")])
    return "connected"


@server.tool(description="Echo text back", annotations=ToolAnnotations(read_only_hint=True))
def peek(text: str) -> str:
    return text


@server.tool(description="Change something", annotations=ToolAnnotations(read_only_hint=False))
def change(text: str) -> str:
    return f"changed {text}"


@server.tool(description="Fail on purpose")
def fail(reason: str) -> str:
    raise ToolError(reason)


@server.tool(description="Exit the process in the middle of the call")
def die() -> str:
    print("dying on purpose", file=sys.stderr, flush=True)
    os._exit(3)


def linger() -> None:
    """`--linger`: a server that will not end: it ignores SIGTERM and stays after its stdin closes,
    until it is killed (SIGKILL), or for at most two minutes (a test that lost it leaks nothing).
    `--pid-file PATH` writes its process id there first."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.alarm(120)
    server.run("stdio")
    while True:
        signal.pause()


if __name__ == "__main__":
    if "--pid-file" in sys.argv:
        Path(sys.argv[sys.argv.index("--pid-file") + 1]).write_text(str(os.getpid()), encoding="utf-8")
    if "--linger" in sys.argv:
        linger()
    if "--die-listing-prompts" in sys.argv:  # it exits while the client lists its prompts
        async def dying_list() -> list[Any]:
            print("dying while listing prompts", file=sys.stderr, flush=True)
            os._exit(3)

        server.list_prompts = dying_list  # type: ignore[method-assign]
    server.run("stdio")
