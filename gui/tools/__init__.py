"""The built-in tools, one module each, and the registry that starts with them.

The app adds MCP servers' tools to the same registry later; everything else only needs
`default_registry()` (or `builtin_tools()` to build its own).
"""

from __future__ import annotations

from gui.core.tools import Registry, Tool
from gui.tools.ask_user import AskUser
from gui.tools.cmd_run import CmdRun
from gui.tools.echo import Echo
from gui.tools.file_read import FileRead
from gui.tools.file_write import FileWrite
from gui.tools.http_get import HttpGet
from gui.tools.mcp_resource import McpResource
from gui.tools.seq_call import SeqCall
from gui.tools.sleep import Sleep

__all__ = [
    "AskUser",
    "CmdRun",
    "Echo",
    "FileRead",
    "FileWrite",
    "HttpGet",
    "McpResource",
    "SeqCall",
    "Sleep",
    "builtin_tools",
    "default_registry",
]


def builtin_tools() -> list[Tool]:
    """A fresh instance of every built-in tool."""
    return [CmdRun(), FileRead(), FileWrite(), HttpGet(), AskUser(), Sleep(), Echo(), SeqCall(), McpResource()]


def default_registry() -> Registry:
    """A registry holding the built-in tools, ready for MCP tools to join."""
    return Registry(builtin_tools())
