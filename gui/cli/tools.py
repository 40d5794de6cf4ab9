"""`seqdesk tools [--json]`: every tool a sequence can use now, through the one door.

Built-in tools and the tools of the MCP servers configured in the data folder (connected for the
listing, or asked of the open app when it holds the folder), with whether each asks first; servers
that are down are listed with why. `--json` prints the same listing as `GET /api/tools` and `seq_tools`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from gui.core.tool_info import ToolListing


def add_tools_command(sub: Any) -> None:
    tools = sub.add_parser("tools", help="list the tools a sequence can use (built in and from MCP servers)")
    tools.add_argument("--json", action="store_true", help="print the listing as JSON")
    tools.set_defaults(func=cmd_tools)


def listing_text(listing: ToolListing) -> str:
    lines: list[str] = []
    for info in listing.tools:
        asks = "asks first" if info.asks_first else "no approval needed"
        result = info.result_type or "known when it runs"
        where = f"from {info.server}" if info.server else "built in"
        lines.append(f"{info.name}  ({where}; {asks}; gives back: {result})")
        if info.title != info.name:
            lines.append(f"    {info.title}")
        if info.description and info.description != info.title:
            lines.append(f"    {info.description.splitlines()[0][:200]}")
        inputs = info.input_schema.get("properties")
        if isinstance(inputs, dict) and inputs:
            required = set(info.input_schema.get("required") or [])
            names = [f"{k}{'' if k in required else '?'}" for k in inputs]
            lines.append(f"    inputs: {', '.join(names)}")
    for server in listing.servers:
        state = server.status + (f": {server.last_error}" if server.last_error else "")
        lines.append(f"server {server.name}: {state} ({server.tools} tool{'s' if server.tools != 1 else ''})")
    return "\n".join(lines)


def cmd_tools(args: argparse.Namespace) -> int:
    from gui.cli.run import _run_async, connect

    async def go() -> int:
        ops = await connect(args)
        try:
            listing = await ops.list_tools()
        finally:
            await ops.close()
        if args.json:
            print(json.dumps(listing.to_json(), ensure_ascii=False, indent=2))
        else:
            print(listing_text(listing))
        return 0

    return _run_async(go)
