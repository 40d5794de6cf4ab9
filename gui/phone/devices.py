"""Paired phones and one-time pairing codes.

A pairing code is 128 random bits, good for `CODE_SECONDS` and for one use; only its SHA-256 is
kept, in memory. A paired phone holds a cookie `<phone id>.<secret>` (256 random bits); only the
secret's SHA-256 is kept, in `<data folder>/paired-phones.json` (0600). Forgetting a phone deletes
its entry: its cookie stops working at its next request.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from gui.prefs import PrefsFile

CODE_SECONDS = 120.0
MAX_PHONES = 20


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class PairedPhone:
    phone_id: str
    name: str  # what its browser says it is ("Android phone, Chrome")
    paired_at: float
    last_seen: float
    secret_hash: str

    def public(self) -> dict[str, object]:
        return {"phone_id": self.phone_id, "name": self.name, "paired_at": self.paired_at,
                "last_seen": self.last_seen}


class PairingCodes:
    """At most one live code: a new one ends the one before."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, seconds: float = CODE_SECONDS) -> None:
        self.clock = clock
        self.seconds = seconds
        self._live: tuple[str, float] | None = None
        self._lock = threading.Lock()

    def new(self) -> tuple[str, float]:
        """A fresh code and the seconds it is good for."""
        code = secrets.token_urlsafe(16)
        with self._lock:
            self._live = (_digest(code), self.clock() + self.seconds)
        return code, self.seconds

    def use(self, code: str) -> bool:
        """True once for the live code within its time; it is gone after (used or not)."""
        with self._lock:
            live = self._live
            if live is None or not hmac.compare_digest(_digest(code), live[0]):
                return False
            self._live = None
            return self.clock() <= live[1]

    def check(self, code: str) -> bool:
        """Whether `code` is the live one (without using it): the pairing page's question."""
        with self._lock:
            live = self._live
            return live is not None and hmac.compare_digest(_digest(code), live[0]) and self.clock() <= live[1]

    def cancel(self) -> None:
        with self._lock:
            self._live = None


class PairedPhones:
    def __init__(self, folder: Path | None) -> None:
        self.file = PrefsFile(folder, "paired-phones")
        self._lock = threading.Lock()
        self._seen_written: dict[str, float] = {}

    def list(self) -> builtins.list[PairedPhone]:
        phones = self.file.read().get("phones", [])
        out = []
        for item in phones if isinstance(phones, list) else []:
            try:
                out.append(PairedPhone(**item))
            except TypeError:
                continue
        return sorted(out, key=lambda p: p.paired_at)

    def add(self, name: str) -> tuple[PairedPhone, str]:
        """A new paired phone and the cookie value it is to hold."""
        secret = secrets.token_urlsafe(32)
        now = time.time()
        phone = PairedPhone(secrets.token_hex(8), name[:80], now, now, _digest(secret))
        with self._lock:
            phones = [p for p in self.list()][-(MAX_PHONES - 1):]
            self._write([*phones, phone])
        return phone, f"{phone.phone_id}.{secret}"

    def recognise(self, cookie: str | None) -> PairedPhone | None:
        if not cookie or "." not in cookie:
            return None
        phone_id, _, secret = cookie.partition(".")
        for phone in self.list():
            if hmac.compare_digest(phone.phone_id, phone_id) and hmac.compare_digest(phone.secret_hash,
                                                                                      _digest(secret)):
                self._seen(phone)
                return phone
        return None

    def forget(self, phone_id: str) -> bool:
        with self._lock:
            phones = self.list()
            kept = [p for p in phones if p.phone_id != phone_id]
            if len(kept) == len(phones):
                return False
            self._write(kept)
            return True

    def _seen(self, phone: PairedPhone) -> None:
        now = time.time()
        if now - self._seen_written.get(phone.phone_id, 0) < 60:  # at most a write a minute per phone
            return
        self._seen_written[phone.phone_id] = now
        with self._lock:
            self._write([PairedPhone(**{**asdict(p), "last_seen": now}) if p.phone_id == phone.phone_id else p
                         for p in self.list()])

    def _write(self, phones: builtins.list[PairedPhone]) -> None:
        self.file.replace({"phones": [asdict(p) for p in phones]})


def phone_name(user_agent: str) -> str:
    """A name a person recognises, from the browser's User-Agent."""
    ua = user_agent.lower()
    device = ("iPhone" if "iphone" in ua else "iPad" if "ipad" in ua else "Android phone" if "android" in ua
              else "Computer")
    browser = ("Edge" if "edg/" in ua else "Firefox" if "firefox" in ua else "Chrome" if "chrome" in ua
               else "Safari" if "safari" in ua else "a browser")
    return f"{device}, {browser}"
