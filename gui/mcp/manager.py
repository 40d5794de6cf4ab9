"""Every configured MCP server's connection, started together and changed one by one at run time.

The app keeps one manager (`runtime.mcp`); the door's MCP server operations (`gui.mcp.managed`)
add, replace and remove servers through it and show `states()`. Each server gets its own
elicitation handler from the factory: the inbox in the app, the terminal in the CLI.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from gui.core.asks import ElicitationHandler
from gui.core.errors import ToolError
from gui.core.tools import JsonValue, Registry, ServerInfo
from gui.mcp.config import McpConfigError, McpServerConfig, McpSettingsStore
from gui.mcp.secrets import SecretStore

if TYPE_CHECKING:  # the connections load the MCP SDK (~1 s): a manager with no server never imports it
    from gui.mcp.client import ConnectionState, McpConnection

log = logging.getLogger(__name__)

HandlerFactory = Callable[[McpServerConfig], ElicitationHandler]


class McpManager:
    """Every configured server's connection: started together, changed one by one at run time."""

    def __init__(self, registry: Registry, handler_factory: HandlerFactory, *,
                 backoff: tuple[float, float] = (1.0, 30.0), connect_timeout: float = 30.0,
                 secrets: SecretStore | None = None) -> None:
        self.registry = registry
        self.secrets = secrets  # where the servers' sign-in tokens are (None: in memory)
        self.handler_factory = handler_factory
        self.backoff = backoff
        self.connect_timeout = connect_timeout
        self._connections: dict[str, McpConnection] = {}
        self._closing: set[asyncio.Task[None]] = set()  # connections removed, their servers still ending
        self._listeners: list[Callable[[ConnectionState], None]] = []

    def on_change(self, listener: Callable[[ConnectionState], None]) -> None:
        """Called with a server's new state whenever it changes (the settings page refreshes)."""
        self._listeners.append(listener)

    async def start(self, configs: list[McpServerConfig]) -> None:
        for config in configs:
            await self.add(config)

    async def start_from(self, store: McpSettingsStore, wait: float = 0.0) -> list[ConnectionState]:
        """Connect every server of `store`; wait up to `wait` s for them to settle (a sequence started
        right after then finds their tools). A settings file that cannot be read is logged, never fatal."""
        try:
            configs = await store.list()
        except McpConfigError as exc:
            log.warning("MCP servers not started: %s", exc)
            return self.states()
        await self.start(configs)
        return await self.wait_settled(wait) if wait > 0 else self.states()

    async def stop(self) -> None:
        """Close every connection, and wait for the ones removed before that are still closing."""
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.stop() for c in connections), *self._closing, return_exceptions=True)

    async def add(self, config: McpServerConfig, *, wait: float | None = None) -> McpConnection:
        """Connect a new server, or reconnect one whose settings changed (the old connection is closed
        as in `remove`, waiting at most `wait` s for it)."""
        from gui.mcp.client import McpConnection

        await self.remove(config.name, wait=wait)
        conn = McpConnection(config, self.registry, self.handler_factory(config), backoff=self.backoff,
                             connect_timeout=self.connect_timeout, on_change=self._notify, secrets=self.secrets)
        self._connections[config.name] = conn
        await conn.start()
        return conn

    async def remove(self, name: str, *, wait: float | None = None) -> bool:
        """Take a server away: its tools leave the registry at once; its session is closed by a task
        of the manager's own. Waits for that close at most `wait` s (None: until it is done, which
        `McpConnection.stop` bounds). Cancelling the caller (a page handler whose page went away)
        never cancels the close, and `stop()` waits for closes still under way."""
        conn = self._connections.pop(name, None)
        if conn is None:
            return False
        conn.withdraw()
        closing = asyncio.create_task(conn.stop(), name=f"mcp close {name}")
        self._closing.add(closing)
        closing.add_done_callback(self._closed)
        if wait is None or wait > 0:
            await asyncio.wait({closing}, timeout=wait)
        return True

    def _closed(self, task: asyncio.Task[None]) -> None:
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("Closing the MCP server %s failed", task.get_name().removeprefix("mcp close "),
                      exc_info=task.exception())

    def get(self, name: str) -> McpConnection | None:
        return self._connections.get(name)

    # -- resources (the port `mcp_resource` reads through) -------------------------------------
    def server_names(self) -> list[str]:
        return sorted(self._connections)

    async def read_resource(self, server: str, uri: str) -> JsonValue:
        """A resource of `server` by URI: its text, or `{"text", "content"}` for binary or mixed contents."""
        conn = self._connections.get(server)
        if conn is None:
            raise ToolError(f"there is no MCP server named '{server}'")
        from gui.mcp.tool import resource_part

        result = await conn.read_resource(uri)
        parts = [resource_part(c) for c in result.contents]
        if parts and all("text" in p for p in parts):
            return "\n".join(str(p["text"]) for p in parts)
        return {"text": "\n".join(str(p.get("text", "")) for p in parts if "text" in p), "content": parts}

    async def wait_settled(self, timeout: float = 10.0) -> list[ConnectionState]:
        """Wait (at most `timeout` s) until no server is still connecting; the states then."""
        waits = [c.wait_for("connected", "down", "disabled", timeout=timeout) for c in self._connections.values()]
        await asyncio.gather(*waits, return_exceptions=True)
        return self.states()

    def states(self) -> list[ConnectionState]:
        return [c.state for _, c in sorted(self._connections.items())]

    def server_infos(self) -> list[ServerInfo]:
        """The states as the tool listing shows them (no settings, so no secret)."""
        return [ServerInfo(name=s.name, status=s.status, last_error=s.last_error, protocol=s.protocol,
                           tools=len(s.tools)) for s in self.states()]

    def _notify(self, state: ConnectionState) -> None:
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:
                log.exception("MCP state listener failed")
