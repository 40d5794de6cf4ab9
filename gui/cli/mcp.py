"""The arguments of `seqdesk mcp` (`gui.mcp.cli` serves): read without loading the MCP package, so
that every other command starts without it."""

from __future__ import annotations

import argparse
from typing import Any


def add_mcp_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add `mcp` to the `seqdesk` command's subparsers."""
    parser = subparsers.add_parser(
        "mcp", help="serve sequences to an AI agent over MCP (stdio, or --http PORT)",
        description="Let an AI agent list, create and run sequences through MCP. Steps that need approval "
                    "wait for a person in SeqDesk.")
    parser.add_argument("--http", type=int, metavar="PORT", default=None,
                        help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio")
    parser.add_argument("--host", default=None,
                        help="with --http: the address to listen on (default 127.0.0.1; any other needs a token)")
    parser.add_argument("--token", default=None,
                        help="with --http: the bearer token every request must carry (prefer SEQDESK_TOKEN)")
    parser.add_argument("--connect", default=argparse.SUPPRESS, metavar="URL",
                        help="go to a team's SeqDesk server (seqdesk serve) at URL (or SEQDESK_CONNECT)")
    parser.set_defaults(func=run_mcp)
    return parser


def run_mcp(args: argparse.Namespace) -> int:
    """`seqdesk mcp`, once its arguments are read (`gui.mcp.cli.cmd_mcp`)."""
    from gui.mcp.cli import cmd_mcp

    return cmd_mcp(args)
