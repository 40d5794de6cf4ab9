"""The MCP servers' settings in PostgreSQL, behind `gui.mcp.config.McpSettingsStore`: one row per
server, its headers by name only, their values in the encrypted secrets (`PgSecrets`), as the
settings file of a data folder keeps them. Each change is told to the team's other processes
(`MCP_SERVERS`), which connect the server as it now is (`gui.mcp.managed.ManagedServers.changed_elsewhere`)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool
from pydantic import ValidationError

from gui.mcp.config import McpConfigError, McpServerConfig, file_entry, forget_old_client
from gui.mcp.secrets import SecretStoreError, forget_server, key
from gui.pgstore.pool import connected
from gui.pgstore.secrets import PgSecrets

log = logging.getLogger(__name__)


# Every process hears of a server added, changed or removed by another (as `gui.pgstore.notices`: the
# writer's connections' name, a space, the server's name), with the write: it connects it as it now is.
MCP_SERVERS = "seqdesk_mcp_servers"
NOTICE = "SELECT pg_notify(%s, current_setting('application_name') || ' ' || %s)"


class PgMcpSettings:
    def __init__(self, pool: AsyncConnectionPool, secrets: PgSecrets) -> None:
        self._pool, self._secrets = pool, secrets

    @property
    def secrets(self) -> PgSecrets:
        return self._secrets

    async def list(self) -> list[McpServerConfig]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute("SELECT doc FROM mcp_servers ORDER BY name")).fetchall()
        configs = []
        for (doc,) in rows:
            try:
                configs.append(McpServerConfig.model_validate(self._with_values(doc)))
            except ValidationError as exc:
                log.warning("a stored MCP server cannot be read and is left out: %s", exc)
        return configs

    async def save(self, config: McpServerConfig) -> None:
        old = {c.name: c for c in await self.list()}.get(config.name)
        await asyncio.to_thread(self._keep_secrets, old, config)
        async with connected(self._pool) as conn, conn.transaction():
            await conn.execute("INSERT INTO mcp_servers (name, doc) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE "
                               "SET doc = EXCLUDED.doc", (config.name, Jsonb(file_entry(config))))
            await conn.execute(NOTICE, (MCP_SERVERS, config.name))

    async def delete(self, name: str) -> bool:
        async with connected(self._pool) as conn, conn.transaction():
            gone = await (await conn.execute("DELETE FROM mcp_servers WHERE name = %s RETURNING name",
                                             (name,))).fetchone()
            await conn.execute(NOTICE, (MCP_SERVERS, name))
        if gone is None:
            return False
        try:
            await asyncio.to_thread(forget_server, self._secrets, name)
        except SecretStoreError as exc:
            log.warning("the MCP server %s was removed, but its secrets were not: %s", name, exc)
        return True

    async def reread_secrets(self) -> None:
        """Read the secrets again (another process may have kept a server's header values)."""
        await asyncio.to_thread(self._secrets.reload)

    def _keep_secrets(self, old: McpServerConfig | None, config: McpServerConfig) -> None:
        where = key(config.name, "headers")
        try:
            if config.headers:
                self._secrets.set(where, json.dumps(config.header_values()))
            else:
                self._secrets.delete(where)
        except SecretStoreError as exc:
            raise McpConfigError(f"the header values of {config.name} cannot be kept: {exc}") from None
        forget_old_client(self._secrets, old, config)

    def _with_values(self, doc: Any) -> Any:
        if not isinstance(doc, dict) or not isinstance(doc.get("headers"), list):
            return doc
        text = self._secrets.get(key(str(doc.get("name")), "headers"))
        kept = json.loads(text) if text else {}
        return {**doc, "headers": {n: str(kept.get(n, "")) for n in doc["headers"] if isinstance(n, str)}}
