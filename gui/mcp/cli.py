"""`seqdesk mcp [--http PORT]`: serve SeqDesk's operations to an AI agent over stdio or HTTP.

Over stdio the standard output belongs to the protocol, so everything for people goes to stderr.
HTTP listens on 127.0.0.1 only: these tools run shell commands once a person approves them, and no
other machine should be able to ask. When the app holds the data folder, every call goes to the app
(`gui.ops`), whose inbox then shows the agent's approvals; otherwise the engine opens here, and the
MCP servers configured in `<data folder>/mcp-servers.json` are connected too, so sequences that use
their tools run as they do in the app.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from gui.core.registry import Registry
from gui.mcp.config import JsonMcpSettings
from gui.mcp.manager import HandlerFactory, McpManager

log = logging.getLogger(__name__)
HOST = "127.0.0.1"


def add_mcp_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add `mcp` to the `seqdesk` command's subparsers."""
    parser = subparsers.add_parser(
        "mcp", help="serve sequences to an AI agent over MCP (stdio, or --http PORT)",
        description="Let an AI agent list, create and run sequences through MCP. Steps that need approval "
                    "wait for a person in SeqDesk.")
    parser.add_argument("--http", type=int, metavar="PORT", default=None,
                        help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio")
    parser.set_defaults(func=cmd_mcp)
    return parser


def cmd_mcp(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="seqdesk mcp: %(message)s")
    try:
        asyncio.run(serve(http_port=args.http))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # start-up failures (data folder in use, …) as a sentence, not a traceback
        print(f"seqdesk mcp: {exc}", file=sys.stderr)
        return 1
    return 0


async def serve(*, http_port: int | None = None) -> None:
    """Reach the engine (through the app when it holds the data folder), serve until the agent leaves."""
    from gui.mcp.server import build_server
    from gui.ops import Operations, connect

    ops = await connect()  # opening the engine here also connects the configured MCP servers

    async def open_ops() -> Operations:
        return ops

    server = build_server(open_ops)
    try:
        if http_port is None:
            await server.run_stdio_async()
        else:
            print(f"seqdesk mcp: serving on http://{HOST}:{http_port}/mcp", file=sys.stderr, flush=True)
            await server.run_streamable_http_async(host=HOST, port=http_port)
    finally:
        await ops.close()


def settings_folder(data_dir: Path | None = None) -> Path | None:
    """Where `mcp-servers.json` is: the data folder; in memory mode only SEQDESK_DATA, if set."""
    if data_dir is not None:
        return data_dir
    raw = os.environ.get("SEQDESK_DATA", "").strip()
    if raw:
        return Path(raw).expanduser()
    if os.environ.get("SEQDESK_MEMORY") == "1":
        return None
    from gui.store.datadir import data_dir as default_data_dir

    return default_data_dir()


async def start_configured_servers(registry: Registry, handler_factory: HandlerFactory,
                                   data_dir: Path | None = None, *, wait: float = 10.0) -> McpManager:
    """Connect the servers of `<data folder>/mcp-servers.json` (none in memory mode without
    SEQDESK_DATA), waiting up to `wait` s so a sequence started right after finds their tools."""
    manager = McpManager(registry, handler_factory)
    folder = settings_folder(data_dir)
    if folder is not None:
        await manager.start_from(JsonMcpSettings.in_folder(folder), wait)
    return manager
