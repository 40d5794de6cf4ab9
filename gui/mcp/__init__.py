"""MCP for SeqDesk: other servers' tools in the palette (client), and SeqDesk's operations for agents (server).

Only this package imports the MCP SDK; the core stays free of it (a test checks).
"""

from gui.mcp.client import ConnectionState, ConnectionStatus, McpConnection
from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig, McpSettingsStore, MemoryMcpSettings
from gui.mcp.managed import ManagedServers
from gui.mcp.manager import HandlerFactory, McpManager
from gui.mcp.tool import McpTool

__all__ = [
    "ConnectionState",
    "ConnectionStatus",
    "HandlerFactory",
    "JsonMcpSettings",
    "ManagedServers",
    "McpConfigError",
    "McpConnection",
    "McpManager",
    "McpServerConfig",
    "McpSettingsStore",
    "McpTool",
    "MemoryMcpSettings",
]
