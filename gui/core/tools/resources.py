"""Reading a resource of an MCP server by its URI: the port the built-in `mcp_resource` tool reads through.

The core knows no MCP: the composition root hands the tool a `ResourceReader` (the app's MCP
manager), which reads only through the connections the person configured; it never opens one.
"""

from __future__ import annotations

from typing import Any, Protocol


class ResourceReader(Protocol):
    def server_names(self) -> list[str]:
        """The configured servers, connected or not."""
        ...

    async def read_resource(self, server: str, uri: str) -> Any:
        """The resource's text (or `{"text", "content"}` for binary or mixed contents, see
        `gui.core.tools.media`); ToolError saying why not (no such server, not connected, not found)."""
        ...
