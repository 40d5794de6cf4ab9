"""MCP for SeqDesk: other servers' tools in the palette (client), and SeqDesk's operations for agents (server).

Only this package imports the MCP SDK; the core stays free of it (a test checks). The SDK takes longer
to import than the rest of SeqDesk, so it is loaded only where it is used: by a connection
(`gui.mcp.client`, `gui.mcp.tool`), a sign-in (`gui.mcp.auth`) and the server (`gui.mcp.server`). The
manager, the door's port (`gui.mcp.managed`) and the sign-ins import those when a server is connected
or a sign-in starts, so the app and the commands on a folder without servers never load it. The face
names the servers' settings; the other parts are imported by their module path.
"""

from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig, McpSettingsStore, MemoryMcpSettings

__all__ = [
    "JsonMcpSettings",
    "McpConfigError",
    "McpServerConfig",
    "McpSettingsStore",
    "MemoryMcpSettings",
]
