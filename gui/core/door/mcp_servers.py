"""The MCP servers through the door: what the operations take and give, the port they go through, and
the engine's side of them (`McpServerDoor`, which `Engine` holds).

A person (Settings), a program (the HTTP API) or `RemoteEngine` lists, adds, changes and removes the
MCP servers and starts a sign-in with the same operations; none of them keeps a config or starts a
connection itself. The core does not know how servers are kept or connected: it asks the port
`McpServers`, which `gui.mcp` implements over its settings file, its connections and its secret
store, and the composition root (`gui.runtime`) attaches. An engine without one (in-memory tests, a
runtime that connects no servers) lists none and refuses the changes.

What goes in is a server as the person writes it (`McpServerSpec`, `McpServerChange`), secrets
included; what comes out (`McpServerView`) never holds one: a header by its name, a program's
environment by its names, whether a Client secret is kept. Each change is announced on the bus
(`settings.changed`, setting "mcp_servers"), and every change of the tools or of a server's
connection as `tools.changed`, so pages redraw without polling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from gui.core.errors import Conflict, Failed, Invalid, NotFound, Unavailable
from gui.core.events import EventBus, SettingsChanged, ToolsChanged

Transport = Literal["stdio", "http"]
ProtocolChoice = Literal["auto", "legacy"]
# What an update changed, as `settings.changed` says it: {aspect: server name} (and "value" for a switch).
Aspect = Literal["trusted", "side_by_side", "protocol", "enabled", "headers", "client"]


class McpServerNotFound(NotFound):
    """No MCP server has that name."""

    code = "no-such-server"


class McpServerExists(Conflict):
    """A server of that name is there already (an add never replaces one)."""

    code = "server-exists"


class McpServerInvalid(Invalid):
    """The server as written cannot be used; `errors` are pydantic's (loc, msg, type), one per field at
    fault, when they are known (a Settings form names each field with them)."""

    code = "invalid-server"

    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


class SignInFailed(Failed):
    """A sign-in could not be started (the server offers none, refused SeqDesk's registration, did
    not answer); the message says why, in words."""

    code = "sign-in-failed"


class McpServerSpec(BaseModel):
    """An MCP server as the person writes it: a program on this computer (stdio: `command`, `args`,
    `env`, `cwd`) or a web address (http: `url`, `headers`, a sign-in client). The port checks it
    whole (`McpServerInvalid`); the secrets in it (header values, the Client secret) go to the secret
    store, never to the settings file, and never come back out."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    transport: Transport = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    trusted: bool = False
    side_by_side: bool = False  # its steps may run side by side (`gui.mcp.config.McpServerConfig`)
    enabled: bool = True
    protocol: ProtocolChoice = "auto"
    oauth_client_id: str | None = None
    oauth_client_secret: SecretStr | None = None


class McpServerChange(BaseModel):
    """What to change of a server; a field left out stays as it is.

    `headers` is the whole set sent from now on: a value sets it, None keeps the value kept for that
    name, a name left out is no longer sent. `oauth_client_id` and `oauth_client_secret` given as None
    clear them (a Client ID cleared takes its secret with it); changing either one forgets the
    server's sign-in, so it asks for a new one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trusted: bool | None = None
    side_by_side: bool | None = None
    enabled: bool | None = None
    protocol: ProtocolChoice | None = None
    headers: dict[str, SecretStr | None] | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: SecretStr | None = None

    def given(self, field: str) -> bool:
        """Whether `field` was given (None then means "clear it" for the sign-in client's fields)."""
        return field in self.model_fields_set and (
            getattr(self, field) is not None or field in ("oauth_client_id", "oauth_client_secret"))


class McpServerState(BaseModel):
    """A server's connection now."""

    model_config = ConfigDict(frozen=True)

    status: Literal["connected", "connecting", "down", "disabled"]
    last_error: str | None = None
    tools: list[str] = Field(default_factory=list)  # its tools' names, while connected
    protocol: str | None = None  # the protocol version it agreed on
    retry_in: float | None = None  # seconds until the next attempt, while down
    needs_sign_in: bool = False  # down because it refused SeqDesk: not tried again until asked


class McpServerView(BaseModel):
    """One server as surfaces show it: its settings without a secret, and its connection now (None:
    not connected in this session). Over the HTTP API a program's arguments and the parts of a web
    address that can carry a credential are left out (only Settings shows them)."""

    model_config = ConfigDict(frozen=True)

    name: str
    transport: Transport = "stdio"
    trusted: bool = False
    side_by_side: bool = False
    enabled: bool = True
    protocol: ProtocolChoice = "auto"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: list[str] = Field(default_factory=list)  # the names only
    cwd: str | None = None
    url: str | None = None
    headers: list[str] = Field(default_factory=list)  # the names only
    headers_missing: list[str] = Field(default_factory=list)  # names whose value is not kept any more
    oauth_client_id: str | None = None
    oauth_client_secret_set: bool = False
    state: McpServerState | None = None

    def describe(self) -> str:
        """Where the server is, for people: the command line or the address."""
        if self.transport == "http":
            return str(self.url)
        return " ".join([str(self.command), *self.args])


class McpServerListing(BaseModel):
    """Every configured server, and where their secrets are kept (in words; None: not said)."""

    model_config = ConfigDict(frozen=True)

    servers: list[McpServerView] = Field(default_factory=list)
    secrets_where: str | None = None

    def get(self, name: str) -> McpServerView | None:
        return next((s for s in self.servers if s.name == name), None)


class McpServers(Protocol):
    """What the core asks of whoever keeps and connects the MCP servers (`gui.mcp.ManagedServers`).

    Every write is durable when it returns and the connection follows it (a server added starts
    connecting, a changed one reconnects, a removed one's tools leave at once). Failures:
    McpServerNotFound, McpServerExists, McpServerInvalid, SignInFailed, Unavailable (a sentence:
    the settings or a secret cannot be read or kept)."""

    async def listing(self) -> McpServerListing: ...

    async def add(self, spec: McpServerSpec) -> McpServerView: ...

    async def update(self, name: str, change: McpServerChange) -> tuple[McpServerView, set[Aspect]]:
        """The server as it is now, and what changed (nothing: nothing was written)."""
        ...

    async def remove(self, name: str) -> bool: ...

    async def sign_in(self, name: str, callback: str) -> str | None:
        """The address of the server's sign-in page for the person's browser, which comes back to
        `callback`; None when the server let SeqDesk in without one."""
        ...

    async def retry(self, name: str) -> bool:
        """Try to connect now instead of waiting; False when it is not connecting in this session."""
        ...

    def on_change(self, listener: Callable[[], None]) -> None:
        """`listener` is called whenever a server's connection changes."""
        ...


NOT_HERE = "MCP servers are not kept by this engine (it was opened without them)"


class McpServerDoor:
    """The MCP server operations of `Engine`: each through the port, each change announced."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._servers: McpServers | None = None

    def attach(self, servers: McpServers) -> None:
        """Keep and connect servers through `servers` from now on (the composition root does)."""
        self._servers = servers
        servers.on_change(self.tools_changed)

    def tools_changed(self) -> None:
        """What `list_tools` answers changed (a server's connection, or the tools): pages redraw."""
        self.bus.publish(ToolsChanged)

    @property
    def servers(self) -> McpServers:
        if self._servers is None:
            raise Unavailable(NOT_HERE)
        return self._servers

    async def listing(self) -> McpServerListing:
        return await self._servers.listing() if self._servers is not None else McpServerListing()

    async def add(self, spec: McpServerSpec) -> McpServerView:
        view = await self.servers.add(spec)
        self._said(added=view.name)
        return view

    async def update(self, name: str, change: McpServerChange) -> McpServerView:
        view, changed = await self.servers.update(name, change)
        for aspect in sorted(changed):
            value = getattr(view, aspect) if aspect in ("trusted", "side_by_side", "protocol", "enabled") else None
            self._said(**{aspect: name}, **({"value": value} if value is not None else {}))
        return view

    async def remove(self, name: str) -> bool:
        removed = await self.servers.remove(name)
        if removed:
            self._said(removed=name)
        return removed

    async def sign_in(self, name: str, callback: str) -> str | None:
        return await self.servers.sign_in(name, callback)

    async def retry(self, name: str) -> bool:
        return await self.servers.retry(name)

    def _said(self, **details: Any) -> None:
        self.bus.publish(SettingsChanged, setting="mcp_servers", details=details)
