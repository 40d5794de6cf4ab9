"""`seqdesk tools [--json]`: every tool a sequence can use now, through the one door.

Built-in tools and the tools of the MCP servers configured in the data folder (connected for the
listing, or asked of the open app when it holds the folder), with whether each asks first; servers
that are down are listed with why. `--json` prints the same listing as `GET /api/tools` and `seq_tools`.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from gui.i18n import _, ngettext

if TYPE_CHECKING:
    from gui.core.tools import ToolListing


def add_tools_command(sub: Any) -> None:
    tools = sub.add_parser("tools", help=_("list the tools a sequence can use (built in and from MCP servers)"))
    tools.add_argument("--json", action="store_true", help=_("print the listing as JSON"))
    tools.set_defaults(func=cmd_tools)


def listing_text(listing: ToolListing) -> str:
    lines: list[str] = []
    for info in listing.tools:
        asks = _("asks first") if info.asks_first else _("no approval needed")
        result = info.result_type or _("known when it runs")
        where = _("from {server}").format(server=info.server) if info.server else _("built in")
        lines.append(_("{name}  ({where}; {asks}; gives back: {result})").format(name=info.name, where=where,
                                                                                asks=asks, result=result))
        if info.title != info.name:
            lines.append(f"    {info.title}")
        if info.description and info.description != info.title:
            lines.append(f"    {_(info.description).splitlines()[0][:200]}")
        inputs = info.input_schema.get("properties")
        if isinstance(inputs, dict) and inputs:
            required = set(info.input_schema.get("required") or [])
            names = [f"{k}{'' if k in required else '?'}" for k in inputs]
            lines.append("    " + _("inputs: {names}").format(names=", ".join(names)))
    for server in listing.servers:
        state = server.status + (f": {server.last_error}" if server.last_error else "")
        lines.append(ngettext("server {name}: {state} ({n} tool)", "server {name}: {state} ({n} tools)",
                              server.tools).format(name=server.name, state=state, n=server.tools))
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
