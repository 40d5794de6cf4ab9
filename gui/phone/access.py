"""Phone access for the app: the network listener, pairing, and the paired phones.

Nothing is open to the network until a person turns it on in Settings (kept in the app's
preferences, so it is on again at the next start). On the network every request needs a paired
phone's cookie (or, when the app has a token, the token), except the pairing page itself.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from gui.i18n import _
from gui.phone.devices import PairedPhone, PairedPhones, PairingCodes
from gui.phone.lan import LanError, LanListener, lan_address
from gui.prefs import Prefs, PrefsFile

log = logging.getLogger(__name__)
PREF = "phone_access"


class Served(Protocol):
    """Where the app is served, as the request gate keeps it (`gui.api.request_gate.Served`): the
    network listener's address is added to it while phones may connect."""

    @property
    def also(self) -> set[tuple[str, int]]: ...

    @property
    def origins(self) -> list[str]: ...


class PhoneAccess:
    def __init__(self, served: Served, port: int | None, *, address: Callable[[], str | None] = lan_address) -> None:
        self.served = served
        self.port = port  # the app's own port: the listener uses the same one on the network address
        self.address = address
        self.codes = PairingCodes()
        self.phones = PairedPhones(None)
        self.prefs: Prefs = PrefsFile(None, "preferences")
        self.listener = LanListener()
        self.problem: str | None = None  # why it could not be turned on
        self.on_change: list[Callable[[], None]] = []
        self.on_forget: list[Callable[[str], None]] = []

    def open(self, data_dir: Path | None, prefs: Prefs) -> None:
        self.phones = PairedPhones(data_dir)
        self.prefs = prefs

    @property
    def wanted(self) -> bool:
        return bool(self.prefs.read().get(PREF))

    @property
    def on(self) -> bool:
        return self.listener.running

    @property
    def url(self) -> str | None:
        """Where a phone opens the app (no token in it), while it is on."""
        if not self.listener.running or self.listener.host is None:
            return None
        host = self.listener.host
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.listener.port}"

    async def turn_on(self, app: Any) -> str | None:
        """Start listening on the network (None), or say why not."""
        self.prefs.update(**{PREF: True})
        if self.listener.running:
            return None
        host = self.address()
        if host is None:
            self.problem = _("This computer has no address on a local network right now (is it connected to "
                             "Wi-Fi?). Connect it, then turn this on again.")
        elif self.port is None:
            self.problem = _("SeqDesk was started without a fixed port, so it cannot listen on the network.")
        else:
            try:
                await self.listener.start(app, host, self.port)
            except LanError as exc:
                self.problem = _("Could not open SeqDesk to the network: {problem}.").format(problem=exc)
            else:
                self.problem = None
                self.served.also.add((host.lower(), self.port))
                self._cors()
        self._changed()
        return self.problem

    async def turn_off(self) -> None:
        self.prefs.update(**{PREF: False})
        self.codes.cancel()
        await self.stop()
        self._changed()

    async def stop(self) -> None:
        """Stop listening (at shut-down too), keeping the choice."""
        if self.listener.host is not None and self.listener.port is not None:
            self.served.also.discard((self.listener.host.lower(), self.listener.port))
        await self.listener.stop()
        self._cors()

    def listens_at(self, server: Any) -> bool:
        """Whether a request's `scope["server"]` is the phones' listener."""
        if not self.listener.running or not server:
            return False
        host, port = server[0], server[1]
        return str(host).lower() == str(self.listener.host).lower() and port == self.listener.port

    def pairing_link(self) -> tuple[str, float]:
        """A one-time link that pairs the phone opening it, and the seconds it is good for."""
        if self.url is None:
            raise RuntimeError("turn phone access on first")
        code, seconds = self.codes.new()
        self._changed()
        return f"{self.url}/pair/{code}", seconds

    def pair(self, code: str, user_agent: str) -> str | None:
        """The cookie value for the phone holding `code`, once; None for a wrong or used code."""
        from gui.phone.devices import phone_name

        if not self.codes.use(code):
            return None
        _phone, cookie = self.phones.add(phone_name(user_agent))
        self._changed()
        return cookie

    def recognise(self, cookie: str | None) -> PairedPhone | None:
        return self.phones.recognise(cookie)

    def forget(self, phone_id: str) -> bool:
        gone = self.phones.forget(phone_id)
        if gone:
            for listener in list(self.on_forget):
                listener(phone_id)
            self._changed()
        return gone

    def public(self) -> dict[str, Any]:
        return {"on": self.on, "wanted": self.wanted, "url": self.url, "problem": self.problem,
                "phones": [p.public() for p in self.phones.list()]}

    def _cors(self) -> None:
        """The origins NiceGUI's socket accepts, when its pages are served (an app that serves the API
        alone, `gui.background_app`, has no socket: NiceGUI is not even imported there)."""
        core = sys.modules.get("nicegui.core")
        sio = getattr(core, "sio", None)
        if sio is not None:
            sio.eio.cors_allowed_origins = self.served.origins

    def _changed(self) -> None:
        for listener in list(self.on_change):
            try:
                listener()
            except Exception:  # noqa: BLE001 - a page that went away
                log.debug("a phone access listener failed", exc_info=True)
