"""What SeqDesk reads from a connected server besides calling its tools: a prompt with its arguments
filled in (the text-template steps) and a resource by URI (`mcp_resource`). A mixin of
`McpConnection`, over the session it keeps open; failures are `ToolError`s a person can read.
"""

from __future__ import annotations

import asyncio

import httpx2
from mcp import Client, MCPError
from mcp_types import GetPromptResult, ReadResourceResult

from gui.core.errors import ToolError
from gui.mcp.config import McpServerConfig
from gui.mcp.prompts import PROMPT_MARK


class ServerReads:
    config: McpServerConfig
    _client: Client | None
    _status: str
    _last_error: str | None
    _ended: asyncio.Event | None

    def _lost(self, ended: asyncio.Event | None) -> None:
        raise NotImplementedError  # McpConnection's: the server is gone, its tools leave

    def _unreachable(self, exc: BaseException) -> ToolError:
        from gui.mcp.calls import describe

        self._lost(self._ended)
        return ToolError(f"the MCP server '{self.config.name}' cannot be reached: {describe(exc)}")

    async def get_prompt(self, name: str, args: dict[str, str]) -> GetPromptResult:
        """A prompt of this server with its arguments filled in; ToolError saying why not."""
        client = self._connected()
        try:
            return await client.get_prompt(name, args)
        except MCPError as exc:
            raise ToolError(f"{self.config.name}.{PROMPT_MARK}{name}: {exc.message}") from None
        except httpx2.TransportError as exc:
            raise self._unreachable(exc) from None

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """A resource of this server by its URI; ToolError saying why not."""
        client = self._connected()
        try:
            return await client.read_resource(uri)
        except MCPError as exc:
            raise ToolError(f"the MCP server '{self.config.name}' did not give {uri}: {exc.message}") from None
        except httpx2.TransportError as exc:
            raise self._unreachable(exc) from None

    def _connected(self) -> Client:
        client = self._client
        if client is None or self._status != "connected":
            why = f" ({self._last_error})" if self._last_error else ""
            raise ToolError(f"the MCP server '{self.config.name}' is not connected{why}")
        return client

