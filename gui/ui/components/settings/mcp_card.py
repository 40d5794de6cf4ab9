"""Settings → MCP servers: the list (`McpServerList`), the add form (`McpServerForm`) and what each of
their controls asks of the door.

Every change is a door operation (`add_mcp_server`, `update_mcp_server`, `remove_mcp_server`,
`sign_in_mcp_server`, `retry_mcp_server`): this card keeps no config and starts no connection. A
server's Sign in sends this tab to the server's sign-in page, which sends the browser back to
`/oauth/callback` at the address this page was opened with (`gui.ui.pages.oauth_callback`), and
from there back here. On a paired phone the list is shown and nothing can be changed.

The list is redrawn when the door says the servers or their connections changed (`tools.changed`,
`settings.changed`), but never under a change still running nor under an open dialog: a redraw
deletes the list, with the dialog or switch whose handler is awaiting. That handler then speaks
through `done`, in this card, which stays; a redraw put off is made once nothing is open.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from nicegui import ui
from pydantic import SecretStr

from gui.core.door import (
    EventSource,
    McpServerChange,
    McpServerExists,
    McpServerInvalid,
    McpServerListing,
    McpServerNotFound,
    McpServerSpec,
    McpServerView,
    Operations,
    SignInFailed,
)
from gui.core.errors import SeqDeskError
from gui.core.events import Event, SettingsChanged
from gui.i18n import N_, _
from gui.mcp.config import CALLBACK_PATH
from gui.ui.components.settings.mcp_form import McpServerForm, Problems, field_problems, header_updates, invalid_words
from gui.ui.components.settings.mcp_list import McpServerList
from gui.ui.components.settings.mcp_sign_in_client import client_values
from gui.ui.live import live_events

ON_THE_COMPUTER = N_("Servers are added and changed on the computer SeqDesk runs on.")


class McpDoor(Operations, EventSource, Protocol):
    """The door, and its events (to redraw when servers change)."""


def callback_address() -> str:
    """Where the server's sign-in page sends the browser back: this app, at the address the person's
    browser uses for it (the request gate has checked that Host is the app's own)."""
    request = ui.context.client.request
    return str(request.base_url).rstrip("/") + CALLBACK_PATH


def changes(event: Event) -> bool:
    """The servers, or their connections, changed."""
    return event.type == "tools.changed" or (isinstance(event, SettingsChanged) and event.setting == "mcp_servers")


class McpServersCard(ui.card):
    def __init__(self, engine: McpDoor, *, read_only: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.read_only = read_only
        self.shown: McpServerList | None = None
        self.servers: dict[str, McpServerView] = {}
        self._changing = 0
        self._redraws = 0
        self._stale = False
        self.classes("w-full gap-2 p-4").props("flat bordered").mark("mcp-card")
        with self:
            ui.label(_("MCP servers")).classes("text-lg font-semibold")
            ui.label(_("Tool servers whose tools you can use in sequences, named server.tool. A server describes "
                       "its own tools: only believe one you trust when it says a tool only reads.")).classes(
                "text-sm text-gray-600 dark:text-gray-400")
            if read_only:
                ui.label(_(ON_THE_COMPUTER)).classes("text-sm text-gray-600 dark:text-gray-400").mark(
                    "mcp-on-the-computer")
            self.box = ui.column().classes("w-full gap-0")
            self.adding: ui.expansion | None = None
            if not read_only:
                with ui.expansion(_("Add a server"), icon="add").classes("w-full").mark("mcp-add-section") as adding:
                    McpServerForm(on_add=self._add)
                self.adding = adding
            live_events(engine, self._on_events, types=("tools.changed", "settings.changed"), interval=1.0)
            ui.timer(1.0, self._catch_up)  # a redraw put off under a dialog is made once it closes

    # -- drawing -------------------------------------------------------------------------------
    def busy(self) -> bool:
        return bool(self._changing) or (self.shown is not None and self.shown.asking)

    async def redraw(self, *, unless_busy: bool = False) -> bool:
        """Read the list, then clear and draw it in one step (two redraws at once never draw two
        lists); only the latest of redraws under way draws. True if this one drew."""
        self._redraws += 1
        mine = self._redraws
        self._stale = False
        problem = ""
        try:
            listing: McpServerListing | None = await self.engine.list_mcp_servers()
        except SeqDeskError as exc:  # the settings file cannot be read: said where the list would be
            listing, problem = None, str(exc)
        if mine != self._redraws or self.is_deleted or (unless_busy and self.busy()):
            self._stale = self._stale or mine == self._redraws
            return False
        self.box.clear()
        with self.box:
            if listing is None:
                ui.label(problem).classes("text-red-700 dark:text-red-400 break-words").mark("mcp-list-problem")
                self.shown = None
                return True
            self.servers = {s.name: s for s in listing.servers}
            if self.read_only:
                self.shown = McpServerList(listing.servers, secrets_where=listing.secrets_where or
                                           N_("kept apart from the settings"))
            else:
                self.shown = McpServerList(
                    listing.servers, on_remove=self._remove, on_trust=self._trust, on_enabled=self._switch,
                    on_sign_in=self._sign_in, on_retry=self._retry, on_protocol=self._protocol,
                    on_side_by_side=self._side_by_side,
                    on_headers=self._change_headers, on_client=self._change_client,
                    secrets_where=listing.secrets_where or N_("kept apart from the settings"))
        return True

    async def _on_events(self, events: list[Event]) -> None:
        if any(changes(e) for e in events):
            self._stale = True
            await self._catch_up()

    async def _catch_up(self) -> None:
        if self._stale and not self.busy():
            await self.redraw(unless_busy=True)

    @contextmanager
    def _change(self) -> Iterator[None]:
        self._changing += 1
        try:
            yield
        finally:
            self._changing -= 1

    async def done(self, message: str) -> None:
        if self.is_deleted:  # the page is gone
            return
        with self:
            ui.notify(message)
        await self.redraw()

    # -- what the controls ask -----------------------------------------------------------------
    async def _add(self, spec: McpServerSpec) -> Problems | None:
        try:
            await self.engine.add_mcp_server(spec)
        except McpServerInvalid as exc:
            return field_problems(exc.errors) if exc.errors else {"": str(exc)}
        except McpServerExists as exc:  # a server of that name is there already
            return {"name": str(exc)}
        except SeqDeskError as exc:  # it cannot be kept
            return {"": str(exc)}
        ui.notify(_("Added {name}: its tools appear in the tool list once it is connected").format(name=spec.name))
        if self.adding is not None:
            self.adding.close()
        await self.redraw()
        return None

    async def _update(self, name: str, change: McpServerChange) -> str | None:
        """The change through the door: None when it is done, else what is wrong."""
        try:
            with self._change():
                await self.engine.update_mcp_server(name, change)
        except McpServerNotFound:
            return _("{name} is not there any more").format(name=name)
        except McpServerInvalid as exc:
            return invalid_words(exc)
        except SeqDeskError as exc:
            return str(exc)
        return None

    async def _trust(self, name: str, trusted: bool) -> None:
        server = self.servers.get(name)
        if server is None or server.trusted == trusted:
            return
        problem = await self._update(name, McpServerChange(trusted=trusted))
        await self.done(problem or (_("{name}: tools it marks as only reading now run without asking") if trusted
                                    else _("{name}: every one of its tools asks before it runs")).format(name=name))

    async def _side_by_side(self, name: str, value: bool) -> None:
        server = self.servers.get(name)
        if server is None or server.side_by_side == value:
            return
        problem = await self._update(name, McpServerChange(side_by_side=value))
        await self.done(problem or (_("{name}: its tools may now run at the same time") if value
                                    else _("{name}: its tools run one by one")).format(name=name))

    async def _switch(self, name: str, enabled: bool) -> None:
        server = self.servers.get(name)
        if server is None or server.enabled == enabled:
            return
        problem = await self._update(name, McpServerChange(enabled=enabled))
        await self.done(problem or (_("{name}: turned on") if enabled else _("{name}: turned off")).format(name=name))

    async def _protocol(self, name: str, value: str) -> None:
        server = self.servers.get(name)
        if server is None or server.protocol == value or value not in ("auto", "legacy"):
            return
        problem = await self._update(name, McpServerChange.model_validate({"protocol": value}))
        await self.done(problem or (_("{name}: talked to the older way now") if value == "legacy"
                                    else _("{name}: talked to automatically now")).format(name=name))

    async def _change_headers(self, name: str, text: str) -> str | None:
        server = self.servers.get(name)
        if server is None:
            return _("{name} is not there any more").format(name=name)
        headers, bad = header_updates(text, set(server.headers) - set(server.headers_missing))
        if bad:
            return _("Headers: {problems}").format(problems="; ".join(bad))
        problem = await self._update(name, McpServerChange(headers=headers))
        if problem is None:
            await self.done(_("{name}: headers changed").format(name=name))
        return problem

    async def _change_client(self, name: str, client_id: str, secret: str, forget: bool) -> str | None:
        server = self.servers.get(name)
        found = client_values(client_id, secret)
        if isinstance(found, str):
            return found
        cid, value = found
        fields: dict[str, str | SecretStr | None] = {"oauth_client_id": cid}
        if value is not None:
            fields["oauth_client_secret"] = SecretStr(value)
        elif forget:
            fields["oauth_client_secret"] = None
        problem = await self._update(name, McpServerChange.model_validate(fields))
        if problem is not None:
            return problem
        if server is not None and cid == server.oauth_client_id and value is None and not (
                forget and server.oauth_client_secret_set):
            return None  # nothing changed
        await self.done(_("{name}: sign-in client changed; sign in again").format(name=name))
        return None

    async def _retry(self, name: str) -> None:
        try:
            retried = await self.engine.retry_mcp_server(name)
        except (McpServerNotFound, SeqDeskError):
            return
        if retried:
            ui.notify(_("Trying {name} again").format(name=name))

    async def _sign_in(self, name: str) -> None:
        try:
            url = await self.engine.sign_in_mcp_server(name, callback_address())
        except McpServerNotFound:
            return
        except (SignInFailed, SeqDeskError) as exc:
            await self.done(_("Cannot sign in to {name}: {problem}").format(name=name, problem=exc))
            return
        if url is None:
            await self.done(_("{name} let SeqDesk in without signing in: trying it again").format(name=name))
            return
        ui.navigate.to(url)  # this tab goes to the server's sign-in page and comes back

    async def _remove(self, name: str) -> None:
        with self._change():
            try:
                await self.engine.remove_mcp_server(name)
            except SeqDeskError as exc:
                problem: str | None = str(exc)
            else:
                problem = None
        await self.done(problem or _("Removed {name}").format(name=name))


__all__ = ["McpDoor", "McpServersCard"]
