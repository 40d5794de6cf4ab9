"""The MCP servers a person added: what to start or where to connect, and whether to trust it.

A server is a command (stdio) or a URL (streamable HTTP). `trusted` is off by default because a
server describes its own tools: an untrusted server could call a destructive tool "read-only", so
its annotations are ignored and every one of its tools asks before it runs.

An http server may send headers (an API key): their names are settings, their values secrets.
`McpSettingsStore` is the port; `JsonMcpSettings` keeps the list in one JSON file
(`<data folder>/mcp-servers.json`), written atomically so a crash never leaves half a file, with
only the headers' names in it: the values go to the secret store (`gui.mcp.secrets`: the system
keyring, or a private file). A file written before that, with the values in it, is rewritten
without them the first time it is read, once the values are safely in the secret store. The
storage layer may back the same port with TinyDB. `MemoryMcpSettings` is the fake for tests.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from gui.atomic import atomic_write
from gui.core.errors import Internal
from gui.i18n import N_, _
from gui.mcp.secrets import MemorySecrets, SecretStore, SecretStoreError, forget_server, key, open_secret_store

log = logging.getLogger(__name__)

FILE_NAME = "mcp-servers.json"
CALLBACK_PATH = "/oauth/callback"  # the app's page a browser comes back to after signing in to a server
NAME_PATTERN = r"^[a-z0-9_-]{1,40}$"
HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
# Headers the connection itself sets: one given here would break the protocol or the request.
RESERVED_HEADERS = frozenset({"host", "content-length", "content-type", "accept", "transfer-encoding",
                              "connection", "mcp-session-id", "mcp-protocol-version", "last-event-id"})
MAX_CLIENT_TEXT = 512  # characters of a Client ID or Client secret
CLIENT_FIELDS = {"oauth_client_id": N_("Client ID"), "oauth_client_secret": N_("Client secret")}


def client_text_problem(value: str) -> str | None:
    """What is wrong with a Client ID or Client secret (already trimmed), in words; None: nothing."""
    if not value:
        return _("it is empty")
    if len(value) > MAX_CLIENT_TEXT:
        return _("it is longer than {n} characters").format(n=MAX_CLIENT_TEXT)
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        return _("it has a control character in it (a line break or a tab, say)")
    return None


def check_client_text(value: str, field: str) -> str:
    """`value` trimmed; `ValueError` naming `field` (a key of `CLIENT_FIELDS`) when it cannot be used."""
    value = value.strip()
    problem = client_text_problem(value)
    if problem is not None:
        raise ValueError(_("{field}: {problem}").format(field=_(CLIENT_FIELDS[field]), problem=problem))
    return value


class McpConfigError(Internal, ValueError):
    """The settings file cannot be read or holds something that is not a server list."""


def bare_url(url: str) -> str:
    """`url` without the parts that can carry a credential (user and password, query, fragment)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class McpServerConfig(BaseModel):
    """One MCP server. Its tools are named `<name>.<tool>`, so `name` is short and plain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=NAME_PATTERN, description="short identifier: a-z, 0-9, _ and -")
    transport: Literal["stdio", "http"] = "stdio"
    # stdio
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    # http
    url: str | None = None
    # Sent with every request (an API key, say). Values are secrets: masked when printed or dumped,
    # kept in the secret store, never in the settings file.
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    trusted: bool = False
    # Its tools may run beside other tools of a group (each call on its own): a host a fan-out reaches
    # many of at once. Off by default: then only a tool it says only reads, on a trusted server, does.
    side_by_side: bool = False
    enabled: bool = True
    # "auto" negotiates the newest protocol and falls back; "legacy" forces the 2025 handshake,
    # for servers that still ask for input with `ctx.elicit` (it only works there).
    protocol: Literal["auto", "legacy"] = "auto"
    # http: the client made for SeqDesk in the server's own console, for a server that does not let
    # SeqDesk register itself to sign in (its secret is in the secret store: `gui.mcp.oauth_client`).
    oauth_client_id: str | None = None

    @field_validator("oauth_client_id")
    @classmethod
    def _plain_client_id(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        problem = client_text_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("headers")
    @classmethod
    def _plain_headers(cls, headers: dict[str, SecretStr]) -> dict[str, SecretStr]:
        seen: set[str] = set()
        for name, value in headers.items():
            if not HEADER_NAME.match(name):
                raise ValueError(_("{name} is not a header name: use letters, digits and - (e.g. X-Api-Key)").format(
                    name=repr(name[:40])))
            if name.lower() in RESERVED_HEADERS:
                raise ValueError(_("the header {name} is set by the connection itself; it cannot be given here").format(
                    name=name))
            if name.lower() in seen:
                raise ValueError(_("the header {name} is given twice").format(name=name))
            seen.add(name.lower())
            if any(c in value.get_secret_value() for c in "\r\n\0"):
                raise ValueError(_("the value of the header {name} has a line break in it").format(name=name))
        return headers

    def header_values(self) -> dict[str, str]:
        """The headers with their values, for the connection (never for a log or a page)."""
        return {name: value.get_secret_value() for name, value in self.headers.items()}

    @model_validator(mode="after")
    def _transport_fields(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not (self.command and self.command.strip()):
                raise ValueError(_("a stdio server needs a command to start it"))
            if self.url or self.headers:
                raise ValueError(_("url and headers are for http servers; a stdio server has a command"))
            if self.oauth_client_id:
                raise ValueError(_("a Client ID is for signing in to a server at a web address"))
        else:
            if not (self.url and self.url.startswith(("http://", "https://"))):
                raise ValueError(_("an http server needs a url starting with http:// or https://"))
            if self.command or self.args or self.env or self.cwd:
                raise ValueError(_("command, args, env and cwd are for stdio servers; an http server has a url"))
        return self

    @property
    def address(self) -> str:
        """Where the server is, as its approval cards say it: the web address without what can carry a
        credential, or the program it starts (not its arguments)."""
        return bare_url(str(self.url)) if self.transport == "http" else str(self.command)

    def describe(self) -> str:
        """Where the server is, for people: the command line or the URL."""
        if self.transport == "http":
            return str(self.url)
        return " ".join([str(self.command), *self.args])


class McpSettingsStore(Protocol):
    """Where the server list lives. `save` replaces the server of the same name; `secrets` is where
    its servers' secrets are (header values, sign-in tokens)."""

    @property
    def secrets(self) -> SecretStore: ...

    async def list(self) -> list[McpServerConfig]: ...

    async def save(self, config: McpServerConfig) -> None: ...

    async def delete(self, name: str) -> bool: ...


class MemoryMcpSettings:
    def __init__(self, configs: list[McpServerConfig] | None = None) -> None:
        self._items = {c.name: c for c in configs or []}
        self.secrets: SecretStore = MemorySecrets()

    async def list(self) -> list[McpServerConfig]:
        return sorted(self._items.values(), key=lambda c: c.name)

    async def save(self, config: McpServerConfig) -> None:
        forget_old_client(self.secrets, self._items.get(config.name), config)
        self._items[config.name] = config

    async def delete(self, name: str) -> bool:
        if self._items.pop(name, None) is None:
            return False
        forget_server(self.secrets, name)
        return True


class JsonMcpSettings:
    """The list as `{"servers": [...]}` in one file; a missing file is an empty list.

    Header values live in `secrets` (by default the store `open_secret_store` picks for the file's
    folder); the file names the headers only (`"headers": ["X-Api-Key"]`)."""

    def __init__(self, path: Path | str, secrets: SecretStore | None = None) -> None:
        self.path = Path(path)
        self._secrets = secrets
        self._lock = asyncio.Lock()
        # Header values read once per server: the keyring may be a round trip to a daemon, and the
        # settings page lists the servers on every redraw. This process is the folder's only writer.
        self._values: dict[str, dict[str, str]] = {}

    @classmethod
    def in_folder(cls, folder: Path | str, secrets: SecretStore | None = None) -> JsonMcpSettings:
        return cls(Path(folder) / FILE_NAME, secrets)

    @property
    def secrets(self) -> SecretStore:
        if self._secrets is None:
            self._secrets = open_secret_store(self.path.parent)
        return self._secrets

    # The file and the secret store are read and written in a worker thread: the keyring may be a
    # round trip to a daemon, and choosing it imports `keyring` (slow) the first time.
    async def list(self) -> list[McpServerConfig]:
        async with self._lock:
            items = await asyncio.to_thread(self._read)
            return sorted(items.values(), key=lambda c: c.name)

    async def save(self, config: McpServerConfig) -> None:
        async with self._lock:
            await asyncio.to_thread(self._save, config)

    async def delete(self, name: str) -> bool:
        async with self._lock:
            return await asyncio.to_thread(self._delete, name)

    def _save(self, config: McpServerConfig) -> None:
        items = self._read()
        self._keep_headers(config)  # the secrets first: the file then never names a header without a value
        forget_old_client(self.secrets, items.get(config.name), config)
        items[config.name] = config
        self._write(items)

    def _delete(self, name: str) -> bool:
        items = self._read()
        if items.pop(name, None) is None:
            return False
        self._write(items)
        self._values.pop(name, None)
        try:
            forget_server(self.secrets, name)
        except SecretStoreError as exc:  # the server is gone; its secret stays behind, said in the log
            log.warning("the MCP server %s was removed, but its secrets were not: %s", name, exc)
        return True

    def _keep_headers(self, config: McpServerConfig) -> None:
        where = key(config.name, "headers")
        self._values.pop(config.name, None)
        try:
            if config.headers:
                if self._values_of(config.name) != config.header_values():
                    self.secrets.set(where, json.dumps(config.header_values()))
                self._values[config.name] = config.header_values()
            else:
                self.secrets.delete(where)
        except SecretStoreError as exc:
            raise McpConfigError(f"the header values of {config.name} cannot be kept: {exc}") from None

    def _read(self) -> dict[str, McpServerConfig]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise McpConfigError(f"cannot read {self.path}: {exc}") from None
        try:
            data: Any = json.loads(text)
            servers = data["servers"] if isinstance(data, dict) else None
            if not isinstance(servers, list):
                raise McpConfigError(f'{self.path} is not a server list: expected {{"servers": [...]}}')
            plain = [item for item in servers if isinstance(item, dict) and isinstance(item.get("headers"), dict)
                     and item["headers"]]
            configs = [McpServerConfig.model_validate(self._with_values(item)) for item in servers]
        except json.JSONDecodeError as exc:
            raise McpConfigError(f"{self.path} is not valid JSON: {exc}") from None
        except (KeyError, ValidationError) as exc:
            raise McpConfigError(f"{self.path} holds a server that is not valid: {exc}") from None
        items = {c.name: c for c in configs}
        if plain:
            self._move_out(items, [str(item.get("name")) for item in plain])
        return items

    def _with_values(self, item: Any) -> Any:
        """A server of the file, with its headers' values from the secret store."""
        if not isinstance(item, dict) or not isinstance(item.get("headers"), list):
            return item  # no headers, or the values are still here (a file from before: moved out after)
        names = item["headers"]
        if not all(isinstance(n, str) for n in names):
            raise McpConfigError(f"{self.path}: the headers of {item.get('name')!r} are not a list of names")
        kept = self._values_of(str(item.get("name"))) if names else {}
        # A value that is not there (the keyring was emptied) stays empty: the server then says so.
        return {**item, "headers": {n: str(kept.get(n, "")) for n in names}}

    def _values_of(self, name: str) -> dict[str, str]:
        """The header values kept for a server ({} when none can be read: said in the log)."""
        if name in self._values:
            return self._values[name]
        kept: Any = {}
        try:
            text = self.secrets.get(key(name, "headers"))
            kept = json.loads(text) if text else {}
        except (SecretStoreError, json.JSONDecodeError) as exc:
            log.warning("the header values of the MCP server %s cannot be read: %s", name, exc)
            return {}
        values = {str(k): str(v) for k, v in kept.items()} if isinstance(kept, dict) else {}
        self._values[name] = values
        return values

    def _move_out(self, items: dict[str, McpServerConfig], names: Sequence[str]) -> None:
        """Header values written into the file (before they were secrets) go to the secret store; the
        file is rewritten without them only once every one of them is kept there."""
        try:
            for name in names:
                config = items[name]
                self.secrets.set(key(name, "headers"), json.dumps(config.header_values()))
                if self.secrets.get(key(name, "headers")) != json.dumps(config.header_values()):
                    raise SecretStoreError("a value written could not be read back")
                self._values[name] = config.header_values()
        except SecretStoreError as exc:
            log.warning("the header values in %s stay there for now (they cannot be moved to a safer place: %s)",
                        self.path, exc)
            return
        self._write(items)
        log.info("moved the header values of %s out of %s (%s)", ", ".join(names), self.path, self.secrets.where)

    def _write(self, items: dict[str, McpServerConfig]) -> None:
        data = {"servers": [file_entry(c) for c in sorted(items.values(), key=lambda c: c.name)]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8"))


def forget_old_client(secrets: SecretStore, old: McpServerConfig | None, new: McpServerConfig) -> None:
    """A server saved with another Client ID (or none now): the registration and tokens kept for
    it belong to the old client, so they are forgotten (best effort: a token that stays is refused
    by the server, which then asks for a sign-in)."""
    if old is None or old.oauth_client_id == new.oauth_client_id:
        return
    for kind in ("oauth-client", "oauth-tokens"):
        try:
            secrets.delete(key(new.name, kind))
        except SecretStoreError as exc:
            log.warning("the old sign-in of the MCP server %s cannot be forgotten: %s", new.name, exc)


def file_entry(config: McpServerConfig) -> dict[str, Any]:
    """A server as the settings file keeps it: its headers by name only, and no Client ID when
    there is none (files written before it existed stay as they were)."""
    unset = {"oauth_client_id"} if config.oauth_client_id is None else set()
    entry = config.model_dump(mode="json", exclude={"headers", *unset})
    if config.headers:
        entry["headers"] = sorted(config.headers)
    return entry
