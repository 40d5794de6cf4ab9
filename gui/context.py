"""What the composition root (`gui.app`) built for the app, as the pages and the HTTP API receive it.

`AppContext` holds the settings, where the app is served, the engine once it is open (an
`EngineSlot`: routes are registered before it opens), the MCP servers, the notices, the phones;
`open()` and `close()` bring them up and down with the app. It sits below the surfaces that
receive it (`gui.ui`, `gui.api`, `gui.window`): they import it from here, and only the composition
root, on top, imports them all.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from gui.api.request_gate import Served
from gui.core.door import Engine
from gui.core.errors import SeqDeskError, Unavailable
from gui.notify import Notifier, NotifySettingsStore
from gui.prefs import Prefs
from gui.runtime import Runtime, open_runtime
from gui.serving import is_loopback, url_host
from gui.settings import Settings

if TYPE_CHECKING:
    from gui.core.people import Accounts
    from gui.people import OidcSignIn
    from gui.phone import PhoneAccess

log = logging.getLogger(__name__)


class EngineSlot:
    """Where the engine is once it is open: the app opens it after its routes are registered, so
    they are handed this slot, which answers 503 until then (and after the engine has closed)."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine

    def get(self) -> Engine:
        if self.engine is None:
            raise RuntimeError("SeqDesk's engine is not open yet")
        return self.engine

    def for_api(self) -> Engine:
        try:
            return self.get()
        except RuntimeError as exc:
            raise Unavailable(f"{exc}: try again in a moment") from None


@dataclass
class AppContext:
    """What the composition root built for the app: handed to every page and to the API."""

    settings: Settings
    served: Served
    token: str | None = None
    url: str | None = None  # where the CLI and `seqdesk mcp` reach this app
    slot: EngineSlot = field(default_factory=EngineSlot)
    runtime: Runtime | None = None
    endpoint: Path | None = None
    notifier: Notifier | None = None  # notices off the desktop (`gui.notify`), once open
    preferences: Prefs | None = None  # what a person chose (dark mode...), kept by the app
    phone: PhoneAccess | None = None  # phones on the network (`gui.phone`), off unless turned on
    clients: set[int] = field(default_factory=set)  # the processes whose doors used this app (`CLIENT_PID`)
    oidc: OidcSignIn | None = None  # a team server's company sign-in, when configured
    ending: bool = False  # it decided to end (its server stops): API requests from then on are told so (503)
    _opened: asyncio.Event | None = None

    @property
    def engine(self) -> Engine:
        return self.slot.get()

    @property
    def team(self) -> bool:
        """A team server: people sign in, and each page and route checks their role."""
        return self.settings.team

    @property
    def accounts(self) -> Accounts:
        """A team server's people; Unavailable until the store is open (and on the desktop, which has none)."""
        found = self.runtime.accounts if self.runtime is not None else None
        if found is None:
            raise Unavailable("the people of this SeqDesk cannot be reached now: try again in a moment")
        return found

    @property
    def notices(self) -> list[str]:
        return self.runtime.notices if self.runtime is not None else []

    @property
    def data_dir(self) -> Path | None:
        return self.runtime.data_dir if self.runtime is not None else None

    def _event(self) -> asyncio.Event:
        if self._opened is None:
            self._opened = asyncio.Event()
        return self._opened

    async def open(self) -> None:
        settings = self.settings
        _language_defaults(settings, None)  # what the store says while it opens (a repaired file) is in it too
        self.runtime = rt = await open_runtime(settings.data, memory=settings.memory, store=settings.store,
                                               lease=settings.lease, process=settings.process_name)
        # Read every saved sequence now: start-up ends with gc.freeze, which then keeps these long-lived
        # trees out of every full collection (thousands of groups would make each one a long pause).
        await rt.engine.sequence_trees()
        self.preferences = prefs = rt.preferences("preferences")
        _language_defaults(settings, prefs)
        if self.phone is not None:
            self.phone.open(rt.data_dir, self.preferences)
        self.notifier = notifier = Notifier(rt.database.notify_settings if rt.database is not None
                                            else NotifySettingsStore(rt.data_dir), base_url=lambda: self.public_url)
        notifier.attach(rt.engine)
        if rt.database is not None:  # settings another of the team's processes saved: used here too
            rt.closers.append(rt.database.follow_notify_settings(notifier.reload))
            rt.closers.append(rt.database.preferences.watch(functools.partial(_language_kept, prefs)))
        self.slot.engine = rt.engine
        rt.start_schedules()  # only the app runs schedules, while it is open (one app of a team)
        self._event().set()
        if self.url and rt.data_dir is not None:  # lets `seqdesk run` and `seqdesk mcp` reach this app
            from gui.second_launch import background_for, write_endpoint

            self.endpoint = write_endpoint(rt.data_dir, self.url, token_required=self.token is not None,
                                           background=background_for() is not None)

    async def close(self) -> None:
        if self.endpoint is not None:
            self.endpoint.unlink(missing_ok=True)
        if self.phone is not None:
            await self.phone.stop()
        if self.notifier is not None:
            await self.notifier.close()
        rt, self.runtime, self.slot.engine = self.runtime, None, None
        if rt is not None:
            try:
                await rt.close()
            except SeqDeskError as exc:  # e.g. the data folder was moved away: say so, never a traceback
                log.warning("closing SeqDesk: %s", exc)

    @property
    def public_url(self) -> str | None:
        """The address links in notices point at: the network one while phones may use it (on a team
        server, the team's address, `team_address`, when it has one)."""
        phone_url = self.phone.url if self.phone is not None else None
        return phone_url or (self.team_address if self.team else None) or self.url

    @property
    def team_address(self) -> str | None:
        """Where a team's people open its SeqDesk, on their phones too (a team server pairs none):
        `SEQDESK_PUBLIC_URL`, the one address every server of the team is given (the proxy in front of
        them); else this server's own when it listens on the network (its network address, when it
        listens on every interface); None when it answers only on this computer. The same in every
        process of the team given the same settings: no phone depends on which one it reached."""
        if self.settings.public_url:
            return self.settings.public_url.rstrip("/")
        port = self.served.port
        if self.served.any_ip and port is not None:
            from gui.phone.lan import lan_address

            host = self.settings.lan_address or lan_address()
            return f"http://{url_host(host)}:{port}" if host else None
        own = urlsplit(self.url).hostname if self.url else None
        return self.url if own and not is_loopback(own) else None

    def notifier_for_api(self) -> Notifier:
        if self.notifier is None:
            raise Unavailable("SeqDesk's engine is not open yet: try again in a moment")
        return self.notifier

    async def wait_open(self, timeout: float = 30.0) -> None:
        """Wait (bounded) while the engine is still being opened at start-up."""
        if self.slot.engine is not None:
            return
        try:
            await asyncio.wait_for(self._event().wait(), timeout)
        except TimeoutError:
            raise RuntimeError(f"SeqDesk's engine did not open within {timeout:g} s") from None


def _language_kept(prefs: Prefs, name: str) -> None:
    """The language chosen in another of a team's processes: the one pages start in here too."""
    if name == "preferences":
        from gui import i18n

        i18n.set_stored(prefs.read().get("lang"))


def _language_defaults(settings: Settings, prefs: Prefs | None) -> None:
    """The language pages start in: `--lang` / `SEQDESK_LANG`, else the one chosen in Settings last."""
    from gui import i18n

    if settings.lang and prefs is not None:  # said once
        try:
            i18n.normalize(settings.lang)
        except i18n.UnknownLanguage as exc:
            log.warning("SEQDESK_LANG / --lang: %s; the stored choice or English is used", exc)
    i18n.set_defaults(started=settings.lang, stored=prefs.read().get("lang") if prefs is not None else None)
