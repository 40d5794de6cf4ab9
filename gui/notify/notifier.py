"""The notifier: hears the engine's events, and sends notices from background tasks.

It subscribes to the engine (`attach`): a request created pending (one a rule answered is never
pending) or a top-level run that failed becomes a `Notice`, sent to every channel set, each in a
task of its own with retries (`delays`, growing); nothing here ever waits inside the event bus, so
a run never waits for a channel. Each channel's last outcome is kept (`status`) for Settings.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui.core.asks import InteractionRecord
from gui.core.causes import as_cause
from gui.core.events import Event, InteractionChanged, InteractionCreated, RunFinished, RunStarted
from gui.i18n import N_, _
from gui.notify import message
from gui.notify.channels import SendError, send_email, send_ntfy, send_webhook
from gui.notify.message import Notice
from gui.notify.settings import NotifySettings, SettingsInput, SettingsStore
from gui.wording.outcomes import end_words

if TYPE_CHECKING:  # httpx loads its own CLI (slow): imported when the first notice is sent, not with the app
    import httpx

log = logging.getLogger(__name__)

DELAYS = (1.0, 4.0, 15.0, 60.0)  # s before each retry: five attempts within about 80 s
CHANNELS = ("webhook", "ntfy", "email")
WORDS = {"webhook": N_("webhook"), "ntfy": "ntfy", "email": N_("email")}  # each channel, as a sentence names it


@dataclass
class ChannelStatus:
    """The last thing that happened on a channel, for Settings."""

    ok_at: float | None = None  # s since the epoch
    error: str | None = None  # the last failure, once every retry was used (None after a success)
    error_at: float | None = None
    sent: int = 0
    failed: int = 0  # attempts that failed (a notice is tried again up to len(delays) times)
    retrying: int = 0  # notices waiting for another attempt

    def public(self) -> dict[str, Any]:
        return {"last_ok_at": self.ok_at, "last_error": self.error, "last_error_at": self.error_at,
                "sent": self.sent, "failed": self.failed, "retrying": self.retrying}


class Notifier:
    def __init__(self, store: SettingsStore, *, base_url: Callable[[], str | None] = lambda: None,
                 delays: tuple[float, ...] = DELAYS,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.store = store
        self.base_url = base_url
        self.delays = delays
        self._sleep = sleep  # waits between attempts (a test records them instead of timing them)
        self._settings = store.load()
        self._status = {name: ChannelStatus() for name in CHANNELS}
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None
        self._children: set[str] = set()  # runs started by another run: their parent reports
        self._unsubscribe: Callable[[], None] | None = None
        self.on_change: list[Callable[[], None]] = []  # Settings redraws its status lines

    # -- settings ------------------------------------------------------------------------------
    @property
    def settings(self) -> NotifySettings:
        return self._settings

    def update(self, given: SettingsInput) -> NotifySettings:
        """Check and keep new settings (ValueError with the reason); the status of a channel that
        was changed starts afresh."""
        new = given.merged(self._settings)
        self.store.save(new)
        self._take(new)
        return new

    def reload(self) -> None:
        """Read the settings again: another of a team's processes changed them."""
        self._take(self.store.load())

    def _take(self, new: NotifySettings) -> None:
        old, self._settings = self._settings, new
        for name in CHANNELS:
            if _channel_value(old, name) != _channel_value(new, name):
                self._status[name] = ChannelStatus()
        self._changed()

    def status(self) -> dict[str, ChannelStatus]:
        return self._status

    def public(self) -> dict[str, Any]:
        return {**self._settings.public(), "status": {k: v.public() for k, v in self._status.items()}}

    # -- events --------------------------------------------------------------------------------
    def attach(self, engine: Any) -> None:
        """Listen to `engine`'s events from now on (on the running loop)."""
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = engine.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, (InteractionCreated, InteractionChanged, RunFinished, RunStarted)):
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == getattr(loop, "_thread_id", None):
            self._handle(event)
        else:
            loop.call_soon_threadsafe(self._handle, event)

    def _handle(self, event: Event) -> None:
        settings = self._settings
        if isinstance(event, RunStarted):
            if event.parent:
                self._children.add(event.run_id or "")
            return
        notice: Notice | None = None
        if isinstance(event, InteractionCreated) and settings.on_requests and event.record.get("status") == "pending":
            try:
                notice = message.for_request(InteractionRecord.model_validate(event.record), self.base_url())
            except Exception:  # noqa: BLE001 - a record this version cannot read: nothing to send
                log.warning("could not read request %s for a notification", event.interaction_id)
        elif isinstance(event, InteractionChanged) and settings.on_requests:
            try:  # a reminder, an escalation, a hand-over (`gui.core.asks.follow_ups`)
                notice = message.for_follow_up(InteractionRecord.model_validate(event.record), event.change,
                                               tuple(event.notify), self.base_url())
            except Exception:  # noqa: BLE001 - a record this version cannot read: nothing to send
                log.warning("could not read request %s for a notification", event.interaction_id)
        elif isinstance(event, RunFinished):
            child = event.run_id in self._children
            self._children.discard(event.run_id or "")
            if event.status == "failed" and settings.on_failures and not child:
                notice = message.for_failed_run(event.run_id, event.sequence,
                                                end_words(event.status, event.error, as_cause(event.cause)),
                                                self.base_url())
        if notice is not None:
            self.send(notice)

    # -- sending -------------------------------------------------------------------------------
    def send(self, notice: Notice) -> None:
        """Send `notice` on every channel set, each from a background task (returns at once)."""
        for name in self._settings.channels():
            self._spawn(self._send_with_retries(name, notice))

    async def send_test(self, channel: str) -> str | None:
        """One attempt on `channel` now, with the settings kept: None when it arrived, else why not."""
        if channel not in CHANNELS:
            raise ValueError(_("there is no channel {channel}: use one of {channels}").format(
                channel=repr(channel), channels=", ".join(CHANNELS)))
        if channel not in self._settings.channels():
            raise ValueError(_("set the {channel} channel up first, then send a test").format(
                channel=_(WORDS[channel])))
        return await self._attempt(channel, message.test_notice(self.base_url()))

    async def _send_with_retries(self, channel: str, notice: Notice) -> None:
        status = self._status[channel]
        for attempt in range(len(self.delays) + 1):
            error = await self._attempt(channel, notice)
            if error is None:
                return
            if attempt == len(self.delays):
                log.warning("could not notify over %s after %d attempts: %s", channel, attempt + 1, error)
                return
            status.retrying += 1
            try:
                await self._sleep(self.delays[attempt])
            finally:
                status.retrying -= 1

    async def _attempt(self, channel: str, notice: Notice) -> str | None:
        settings = self._settings
        status = self._status[channel]
        try:
            if channel == "webhook" and settings.webhook_url:
                await send_webhook(self._http(), settings.webhook_url, notice)
            elif channel == "ntfy" and settings.ntfy_url:
                await send_ntfy(self._http(), settings.ntfy_url, notice)
            elif channel == "email" and settings.smtp is not None:
                await send_email(settings.smtp, notice)
            else:
                return _("the {channel} channel is not set").format(channel=_(WORDS[channel]))
        except SendError as exc:
            status.error, status.error_at = str(exc), time.time()
            status.failed += 1
            self._changed()
            return str(exc)
        status.ok_at, status.error, status.error_at = time.time(), None, None
        status.sent += 1
        self._changed()
        return None

    def _http(self) -> httpx.AsyncClient:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(follow_redirects=False, trust_env=False)
        return self._client

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _changed(self) -> None:
        for listener in list(self.on_change):
            try:
                listener()
            except Exception:  # noqa: BLE001 - a page that went away
                log.debug("a notification status listener failed", exc_info=True)

    async def idle(self, timeout: float = 10.0) -> None:
        """Wait (bounded) until every send under way has ended (tests, shut-down)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _channel_value(settings: NotifySettings, name: str) -> Any:
    if name == "webhook":
        return settings.webhook_url
    if name == "ntfy":
        return settings.ntfy_url
    return settings.smtp.model_dump(mode="json") if settings.smtp else None
