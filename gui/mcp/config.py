"""The MCP servers a person added: what to start or where to connect, and whether to trust it.

A server is a command (stdio) or a URL (streamable HTTP). `trusted` is off by default because a
server describes its own tools: an untrusted server could call a destructive tool "read-only", so
its annotations are ignored and every one of its tools asks before it runs.

`McpSettingsStore` is the port; `JsonMcpSettings` keeps the list in one JSON file
(`<data folder>/mcp-servers.json`), written atomically so a crash never leaves half a file; the
storage layer may back the same port with TinyDB. `MemoryMcpSettings` is the fake for tests.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

FILE_NAME = "mcp-servers.json"
NAME_PATTERN = r"^[a-z0-9_-]{1,40}$"


class McpConfigError(ValueError):
    """The settings file cannot be read or holds something that is not a server list."""


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
    headers: dict[str, str] = Field(default_factory=dict)
    trusted: bool = False
    enabled: bool = True
    # "auto" negotiates the newest protocol and falls back; "legacy" forces the 2025 handshake,
    # for servers that still ask for input with `ctx.elicit` (it only works there).
    protocol: Literal["auto", "legacy"] = "auto"

    @model_validator(mode="after")
    def _transport_fields(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not (self.command and self.command.strip()):
                raise ValueError("a stdio server needs a command to start it")
            if self.url or self.headers:
                raise ValueError("url and headers are for http servers; a stdio server has a command")
        else:
            if not (self.url and self.url.startswith(("http://", "https://"))):
                raise ValueError("an http server needs a url starting with http:// or https://")
            if self.command or self.args or self.env or self.cwd:
                raise ValueError("command, args, env and cwd are for stdio servers; an http server has a url")
        return self

    def describe(self) -> str:
        """Where the server is, for people: the command line or the URL."""
        if self.transport == "http":
            return str(self.url)
        return " ".join([str(self.command), *self.args])


class McpSettingsStore(Protocol):
    """Where the server list lives. `save` replaces the server of the same name."""

    async def list(self) -> list[McpServerConfig]: ...

    async def save(self, config: McpServerConfig) -> None: ...

    async def delete(self, name: str) -> bool: ...


class MemoryMcpSettings:
    def __init__(self, configs: list[McpServerConfig] | None = None) -> None:
        self._items = {c.name: c for c in configs or []}

    async def list(self) -> list[McpServerConfig]:
        return sorted(self._items.values(), key=lambda c: c.name)

    async def save(self, config: McpServerConfig) -> None:
        self._items[config.name] = config

    async def delete(self, name: str) -> bool:
        return self._items.pop(name, None) is not None


class JsonMcpSettings:
    """The list as `{"servers": [...]}` in one file; a missing file is an empty list."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = asyncio.Lock()

    @classmethod
    def in_folder(cls, folder: Path | str) -> JsonMcpSettings:
        return cls(Path(folder) / FILE_NAME)

    async def list(self) -> list[McpServerConfig]:
        async with self._lock:
            return sorted(self._read().values(), key=lambda c: c.name)

    async def save(self, config: McpServerConfig) -> None:
        async with self._lock:
            items = self._read()
            items[config.name] = config
            self._write(items)

    async def delete(self, name: str) -> bool:
        async with self._lock:
            items = self._read()
            if items.pop(name, None) is None:
                return False
            self._write(items)
            return True

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
            configs = [McpServerConfig.model_validate(item) for item in servers]
        except json.JSONDecodeError as exc:
            raise McpConfigError(f"{self.path} is not valid JSON: {exc}") from None
        except (KeyError, ValidationError) as exc:
            raise McpConfigError(f"{self.path} holds a server that is not valid: {exc}") from None
        return {c.name: c for c in configs}

    def _write(self, items: dict[str, McpServerConfig]) -> None:
        data = {"servers": [c.model_dump(mode="json") for c in sorted(items.values(), key=lambda c: c.name)]}
        write_json_atomic(self.path, data)


def write_json_atomic(path: Path, data: Any) -> None:
    """Temp file in the same folder, fsync, `os.replace`: readers see the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # some platforms cannot open a folder; the rename is still atomic
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
