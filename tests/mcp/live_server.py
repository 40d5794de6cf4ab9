"""A small MCP server whose tool list changes while it runs, which reports progress and logs, and which
answers with images, audio and resource links; it offers a prompt and resources too.

Run as a script over stdio (`python tests/mcp/live_server.py`), or over streamable HTTP with
`--http PORT`. `grow(name)` adds a tool `name` and `shrink(name)` removes it, announcing the change
in both protocols: to `subscriptions/listen` streams (2026-07-28) and as a legacy
`notifications/tools/list_changed`. `count(steps)` reports progress and logs a line per step; with
`hold=true` it stops half way until `release()` is called (so a test can look at the run meanwhile).
`ask_name` asks with `ctx.elicit`, the older request style that only the legacy protocol carries.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

server = MCPServer("live-test", version="1.0")
_released = asyncio.Event()
# A 32×32 checkered PNG and a tenth of a second of silence as WAV.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAQUlEQVR4nO3NsQkAMAwDQQ+mwTKsh8kCdmFQI3hQ+eiqpXF6Pe7a"
       "FwBAAOA62noAgATAdbT1AAAJgOto6wEAAoAPmfLITM22N8UAAAAASUVORK5CYII=")
WAV = ("UklGRkQDAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YSADAACAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA"
       "gICAgICAgICAgICAgICAgICAgA==")


async def _announce(ctx: Context) -> None:
    await ctx.notify_tools_changed()  # 2026-07-28: to the subscriptions/listen streams
    with contextlib.suppress(Exception):  # legacy: a notification on the session (none under 2026-07-28)
        await ctx.request_context.session.send_tool_list_changed()


@server.tool(description="Add a tool with this name (it echoes its text)")
async def grow(name: str, ctx: Context) -> str:
    def added(text: str) -> str:
        return f"{name} says {text}"

    server.add_tool(added, name=name, description=f"A tool added at run time ({name})",
                    annotations=ToolAnnotations(read_only_hint=True))
    await _announce(ctx)
    return f"added {name}"


@server.tool(description="Remove the tool with this name")
async def shrink(name: str, ctx: Context) -> str:
    server.remove_tool(name)
    await _announce(ctx)
    return f"removed {name}"


@server.tool(description="Count to steps, reporting progress and logging each step")
async def count(steps: int, ctx: Context, hold: bool = False) -> str:
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await ctx.info(f"counted {step}")
        if hold and step == steps // 2:
            await ctx.warning("waiting to be released")
            await _released.wait()
    return f"counted to {steps}"


@server.tool(description="Let a held count go on")
def release() -> str:
    _released.set()
    return "released"


@server.tool(description="Answer with a picture, a sound and a link")
def picture() -> CallToolResult:
    return CallToolResult(content=[
        TextContent(type="text", text="a picture, a sound and a link"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        AudioContent(type="audio", data=WAV, mime_type="audio/wav"),
        ResourceLink(type="resource_link", uri="https://example.com/report", name="report.pdf",
                     title="The monthly report"),
        ResourceLink(type="resource_link", uri="note://hello", name="hello note"),
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="note://inline", text="inline text")),
    ])


@server.tool(description="Pretend to fetch a web page", annotations=ToolAnnotations(read_only_hint=True,
                                                                                    open_world_hint=True))
def fetch(url: str) -> str:
    return f"fetched {url}"


@server.tool(description="Look at something on this machine", annotations=ToolAnnotations(read_only_hint=True))
def peek(text: str) -> str:
    return f"peeked {text}"


class Name(BaseModel):
    name: str = Field(description="Your name")


@server.tool(description="Ask for a name with ctx.elicit (the older request style: legacy protocol only)")
async def ask_name(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", Name)
    return f"hello {answer.data.name}" if isinstance(answer, AcceptedElicitation) else answer.action


@server.prompt(title="Summarise a topic", description="A text template that asks for a summary")
def summarize(topic: str, words: str = "50") -> str:
    return f"Summarise {topic} in at most {words} words."


@server.resource("note://hello", name="hello note", description="A short note", mime_type="text/plain")
def hello() -> str:
    return "hello from a resource"


@server.resource("note://secret/{key}", name="secret notes")
def secret(key: str) -> str:
    return f"the secret {key}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        import uvicorn

        uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=int(sys.argv[2]),
                    log_level="info")
    else:
        server.run()
