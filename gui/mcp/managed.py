"""The configured MCP servers as the door's port (`gui.core.door.McpServers`) asks for them: kept in
the settings store (their secrets in its secret store), connected by the manager, signed in to
through `SignIns`.

Settings, the HTTP API and `RemoteEngine` reach this only through the engine's operations, so what
adding, changing or removing a server does is written once, here. Writes go one at a time (a lock):
two adds of one name cannot both pass the check, and the connections change in the order the
settings did. Without a manager (a runtime that connects no servers) the list is still kept and
applies at the next start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError

from gui.core.door import (
    Aspect,
    McpServerChange,
    McpServerExists,
    McpServerInvalid,
    McpServerListing,
    McpServerNotFound,
    McpServerSpec,
    McpServerState,
    McpServerView,
    SignInFailed,
)
from gui.core.errors import Internal
from gui.i18n import _
from gui.mcp.config import McpConfigError, McpServerConfig, McpSettingsStore, check_client_text
from gui.mcp.manager import McpManager
from gui.mcp.oauth_client import UNCHANGED, Unchanged, change_sign_in_client, has_client_secret, set_client_secret
from gui.mcp.secrets import SecretStoreError
from gui.mcp.sign_in import SignInError, SignIns

if TYPE_CHECKING:  # the connections load the MCP SDK: servers listed with none connected never import it
    from gui.mcp.client import ConnectionState

RECONNECT_WAIT = 2.0  # s a change (or a remove) waits for the old connection to end before it returns
_SWITCHES: tuple[Aspect, ...] = ("trusted", "side_by_side", "enabled", "protocol")


def state_of(state: ConnectionState) -> McpServerState:
    return McpServerState(status=state.status, last_error=state.last_error, tools=list(state.tools),
                          protocol=state.protocol, retry_in=state.retry_in, needs_sign_in=state.needs_sign_in)


def view_of(config: McpServerConfig, secret_set: bool, state: ConnectionState | None) -> McpServerView:
    """A server as surfaces show it: the names of its headers and environment, never their values."""
    return McpServerView(
        name=config.name, transport=config.transport, trusted=config.trusted, side_by_side=config.side_by_side,
        enabled=config.enabled,
        protocol=config.protocol, command=config.command, args=list(config.args), env=sorted(config.env),
        cwd=config.cwd, url=config.url, headers=sorted(config.headers),
        headers_missing=sorted(n for n, v in config.headers.items() if not v.get_secret_value()),
        oauth_client_id=config.oauth_client_id, oauth_client_secret_set=secret_set,
        state=state_of(state) if state is not None else None)


def _plain(error: Any) -> str:
    """pydantic's words, except where they quote a pattern a person cannot read (a server's name)."""
    if error["type"] == "string_pattern_mismatch" and tuple(error["loc"])[-1:] == ("name",):
        return _("use 1 to 40 of a-z, 0-9, _ and - (no spaces or capitals)")
    return str(error["msg"])


def invalid(exc: ValidationError) -> McpServerInvalid:
    """The model's complaints, one per field, without the values given (a header value is a secret)."""
    errors = [{"loc": tuple(e["loc"]), "msg": _plain(e), "type": e["type"]} for e in exc.errors()]
    words = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'server'}: {str(e['msg']).removeprefix('Value error, ')}"
                      for e in errors)
    return McpServerInvalid(words, errors)


def checked(data: dict[str, Any]) -> McpServerConfig:
    try:
        return McpServerConfig.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc) from None


class ManagedServers:
    """`McpServers` over a settings store, a manager (None: no connections) and the sign-ins."""

    def __init__(self, store: McpSettingsStore, manager: McpManager | None = None,
                 sign_ins: SignIns | None = None, *, reconnect_wait: float = RECONNECT_WAIT) -> None:
        self.store = store
        self.manager = manager
        self.sign_ins = sign_ins if sign_ins is not None else SignIns(store.secrets)
        self.reconnect_wait = reconnect_wait
        self._lock = asyncio.Lock()

    def on_change(self, listener: Callable[[], None]) -> None:
        if self.manager is not None:
            self.manager.on_change(lambda _state: listener())

    # -- reading -------------------------------------------------------------------------------
    async def _configs(self) -> list[McpServerConfig]:
        try:
            return await self.store.list()
        except McpConfigError as exc:
            raise Internal(str(exc)) from None

    async def _config(self, name: str) -> McpServerConfig:
        found = next((c for c in await self._configs() if c.name == name), None)
        if found is None:
            raise McpServerNotFound(_("there is no MCP server named {name}").format(name=name))
        return found

    async def listing(self) -> McpServerListing:
        configs = await self._configs()
        named = [c.name for c in configs if c.oauth_client_id]
        secrets = self.store.secrets

        def kept() -> tuple[set[str], str]:  # the keyring may be a round trip to a daemon: off the loop
            return {n for n in named if has_client_secret(secrets, n)}, secrets.where

        with_secret, where = await asyncio.to_thread(kept)
        states = {s.name: s for s in self.manager.states()} if self.manager is not None else {}
        return McpServerListing(servers=[view_of(c, c.name in with_secret, states.get(c.name)) for c in configs],
                                secrets_where=where)

    async def _view(self, name: str) -> McpServerView:
        found = (await self.listing()).get(name)
        if found is None:
            raise McpServerNotFound(_("there is no MCP server named {name}").format(name=name))
        return found

    # -- writing -------------------------------------------------------------------------------
    async def add(self, spec: McpServerSpec) -> McpServerView:
        config = checked({**spec.model_dump(exclude={"headers", "oauth_client_secret"}),
                          "headers": {k: v.get_secret_value() for k, v in spec.headers.items()}})
        secret = None
        if spec.oauth_client_secret is not None:
            secret = self._secret(spec.oauth_client_secret.get_secret_value(), config.oauth_client_id)
        async with self._lock:
            if any(c.name == config.name for c in await self._configs()):
                raise McpServerExists(_("A server named “{name}” is already there: remove it first, or pick another "
                                        "name.").format(name=config.name))
            try:
                if secret is not None:  # before the server: its first sign-in finds the secret
                    await asyncio.to_thread(set_client_secret, self.store.secrets, config.name, secret)
                await self.store.save(config)
            except (McpConfigError, SecretStoreError) as exc:
                raise Internal(str(exc)) from None
            if self.manager is not None:
                await self.manager.add(config)
        return await self._view(config.name)

    @staticmethod
    def _secret(value: str, client_id: str | None) -> str:
        try:
            secret = check_client_text(value, "oauth_client_secret")
        except ValueError as exc:
            raise McpServerInvalid(str(exc)) from None
        if client_id is None:
            raise McpServerInvalid(_("A Client secret needs the Client ID it belongs to."))
        return secret

    async def update(self, name: str, change: McpServerChange) -> tuple[McpServerView, set[Aspect]]:
        async with self._lock:
            config = await self._config(name)
            changed: set[Aspect] = set()
            data = {**config.model_dump(exclude={"headers"}), "headers": config.header_values()}
            for aspect in _SWITCHES:
                if change.given(aspect) and getattr(change, aspect) != getattr(config, aspect):
                    data[aspect] = getattr(change, aspect)
                    changed.add(aspect)
            if change.headers is not None:
                headers = self._headers(change.headers, config.header_values())
                if headers != config.header_values():
                    data["headers"] = headers
                    changed.add("headers")
            client_id: str | None | Unchanged = UNCHANGED
            secret: str | None | Unchanged = UNCHANGED
            if change.given("oauth_client_id"):
                client_id = change.oauth_client_id.strip() if change.oauth_client_id is not None else None
            if change.given("oauth_client_secret"):
                value = change.oauth_client_secret
                new_id = config.oauth_client_id if isinstance(client_id, Unchanged) else client_id
                secret = self._secret(value.get_secret_value(), new_id) if value is not None else None
            # Everything is checked before anything is written: a change is kept whole or not at all.
            checked({**data, "oauth_client_id": config.oauth_client_id if isinstance(client_id, Unchanged)
                     else client_id})
            try:
                if changed:
                    await self.store.save(checked(data))
                if not (isinstance(client_id, Unchanged) and isinstance(secret, Unchanged)):
                    if await change_sign_in_client(self.store, name, client_id, secret) is not None:
                        changed.add("client")
                        self.sign_ins.cancel(name)  # a sign-in under way was for the old client
            except ValidationError as exc:
                raise invalid(exc) from None
            except (McpConfigError, SecretStoreError) as exc:
                raise Internal(str(exc)) from None
            except ValueError as exc:
                raise McpServerInvalid(str(exc)) from None
            if changed and self.manager is not None:  # reconnects under the new settings
                await self.manager.add(await self._config(name), wait=self.reconnect_wait)
        return await self._view(name), changed

    @staticmethod
    def _headers(given: dict[str, SecretStr | None], current: dict[str, str]) -> dict[str, str]:
        """The headers to send: a value sets one, None keeps the value kept for it."""
        headers: dict[str, str] = {}
        missing = []
        for header, value in given.items():
            if value is not None and value.get_secret_value().strip():
                headers[header] = value.get_secret_value().strip()
            elif current.get(header):
                headers[header] = current[header]
            else:
                missing.append(_("{name} has no value yet").format(name=header[:40]))
        if missing:
            raise McpServerInvalid(_("Headers: {problems}").format(problems="; ".join(missing)))
        return headers

    async def remove(self, name: str) -> bool:
        async with self._lock:
            self.sign_ins.cancel(name)
            try:
                removed = await self.store.delete(name)
            except McpConfigError as exc:
                raise Internal(str(exc)) from None
            if self.manager is not None:  # its tools leave now; a server slow to end ends on its own
                removed = await self.manager.remove(name, wait=self.reconnect_wait) or removed
        return removed

    async def changed_elsewhere(self, name: str) -> None:
        """Another process sharing the settings (a team's database) added, changed or removed the server
        `name`: connect it here as it now is, or take it away."""
        if self.manager is None:
            return
        async with self._lock:
            config = next((c for c in await self._configs() if c.name == name), None)
            conn = self.manager.get(name)
            if config is None:
                self.sign_ins.cancel(name)
                await self.manager.remove(name, wait=self.reconnect_wait)
            elif conn is None or conn.config != config:
                await self.manager.add(config, wait=self.reconnect_wait)

    # -- connecting ----------------------------------------------------------------------------
    async def sign_in(self, name: str, callback: str) -> str | None:
        config = await self._config(name)
        if not config.enabled:
            raise SignInFailed(_("{name} is turned off: turn it on first").format(name=name))

        def signed_in(server: str) -> None:
            conn = self.manager.get(server) if self.manager is not None else None
            if conn is not None:
                conn.signed_in()

        conn = self.manager.get(name) if self.manager is not None else None
        try:  # answering the refusal the connection met, whichever request met it
            return await self.sign_ins.start(config, callback, on_signed_in=signed_in,
                                             challenge=conn.challenge if conn is not None else None)
        except SignInError as exc:
            raise SignInFailed(str(exc)) from None

    async def retry(self, name: str) -> bool:
        conn = self.manager.get(name) if self.manager is not None else None
        if conn is None:
            await self._config(name)  # McpServerNotFound when there is no such server at all
            return False
        if not conn.config.enabled:
            return False
        conn.retry_now()
        return True
