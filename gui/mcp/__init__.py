"""MCP for SeqDesk: other servers' tools in the palette (client), and SeqDesk's operations for agents (server).

Only this package imports the MCP SDK; the core stays free of it (a test checks). The face names the
servers' settings, which load no SDK; the parts that do (the connections `gui.mcp.client`, their
manager `gui.mcp.manager`, `gui.mcp.managed`, the server `gui.mcp.server`) are imported by their module
path where they are used, so that a command that needs none of them (`seqdesk help`) never loads the
SDK, which takes longer to import than the rest of SeqDesk.
"""

from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig, McpSettingsStore, MemoryMcpSettings

__all__ = [
    "JsonMcpSettings",
    "McpConfigError",
    "McpServerConfig",
    "McpSettingsStore",
    "MemoryMcpSettings",
]
