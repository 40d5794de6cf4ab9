"""The frame every page shares: header with navigation, the live inbox badge, dark mode, and
desktop notifications.

A request for a person is only useful if the person notices it, wherever they are in the app: so
the header on every page carries the pending count (kept live through `gui.ui.live`) and, when
the window is in the background, a new request raises a desktop notification (the browser's
Notification API; permission is asked once, on the first click, since browsers ignore requests
that do not come from a gesture). Dark mode is remembered per browser in `app.storage.user`.
What the store repaired at start-up (a damaged file) is shown at the top of every page.

Pages use it as `with frame("Run"):` and build their content inside.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nicegui import __version__ as nicegui_version
from nicegui import app, context, ui

from gui.core.asks import InteractionRecord
from gui.core.door import Engine
from gui.core.events import Event, InteractionCreated, InteractionEnded
from gui.core.people import DESKTOP_PERSON
from gui.i18n import N_, _, current_language, html_lang
from gui.prefs import Prefs
from gui.ui.components.store_notice import StoreNotice
from gui.ui.live import live_events
from gui.wording import requests as fmt

if TYPE_CHECKING:
    from gui.context import AppContext

log = logging.getLogger(__name__)

APP_NAME = "SeqDesk"
ASSETS_URL = "/seqdesk-assets"
NAV = [(N_("Sequences"), "/", "list"), (N_("Run"), "/run", "play_arrow"), (N_("Inbox"), "/inbox", "inbox"),
       (N_("Runs"), "/runs", "history"), (N_("Settings"), "/settings", "settings")]

_HEAD = """
<script>
window.seqdesk = window.seqdesk || {};
seqdesk.askNotify = function () {
  try {
    if (!('Notification' in window) || Notification.permission !== 'default') return;
    if (localStorage.getItem('seqdesk.notify.asked')) return;
    localStorage.setItem('seqdesk.notify.asked', '1');
    Notification.requestPermission();
  } catch (e) {}
};
document.addEventListener('click', function () { if (seqdesk.desktopNotify) seqdesk.askNotify(); }, {once: true});
seqdesk.setCount = function (n) {
  const base = document.title.replace(/^\\(\\d+\\+?\\) /, '');
  document.title = (n > 0 ? '(' + (n > 999 ? '999+' : n) + ') ' : '') + base;
};
seqdesk.desktopNotify = true;
seqdesk.notify = function (title, body, url, tag) {
  try {
    if (!seqdesk.desktopNotify || !document.hidden || !('Notification' in window)
        || Notification.permission !== 'granted') return;
    const n = new Notification(title, {body: body, tag: tag, icon: 'ASSETS/icon.png'});
    n.onclick = function () { window.focus(); window.location.href = url; n.close(); };
  } catch (e) {}
};
</script>
""".replace("ASSETS", ASSETS_URL)

_CSS = """
.inbox-row { border: 1px solid rgba(127, 127, 127, .3); transition: background-color .15s; }
.inbox-row:hover { background: rgba(103, 58, 183, .06); }
.inbox-row-selected { border-left: 4px solid #7e57c2 !important; background: rgba(103, 58, 183, .10); }
.inbox-mono { background: rgba(127, 127, 127, .12); }
.inbox-banner { background: rgba(127, 127, 127, .16); }
.seqdesk-countdown { display: inline-flex; align-items: center; gap: 4px; padding: 1px 8px; border-radius: 4px;
  border: 1px solid rgba(127, 127, 127, .45); font-size: .8rem; line-height: 1.4rem; white-space: nowrap; }
.seqdesk-countdown::before { font-family: 'Material Icons'; content: 'schedule'; font-size: 16px; }
.seqdesk-countdown-urgent { background: #ffe082; color: #5d4000; border-color: #ffca28; }
.seqdesk-countdown-urgent::before { content: 'hourglass_bottom'; }
.seqdesk-countdown-over::before { content: 'timer_off'; }
.seqdesk-kbd { display: inline-block; min-width: 1.4em; padding: 0 .35em; border: 1px solid rgba(127, 127, 127, .55);
  border-bottom-width: 2px; border-radius: 4px; font: 600 .75rem/1.3rem ui-monospace, monospace; text-align: center; }
/* A button that cannot be pressed looks it, a filled (primary) one too: grey, not its colour at 60%. */
.q-btn.disabled.q-btn--unelevated, .q-btn.disabled.seqdesk-off { filter: grayscale(1); opacity: .45 !important; }
.seqdesk-nav .q-btn.seqdesk-active { background: rgba(255, 255, 255, .18); }
.seqdesk-header .q-btn { min-height: 44px; min-width: 44px; }
.seqdesk-menu .q-item { min-height: 48px; }
.seqdesk-menu .q-item.seqdesk-active { background: rgba(103, 58, 183, .12); font-weight: 600; }
@media (max-width: 599.98px) {
  .seqdesk-header { padding-left: 8px !important; padding-right: 8px !important; }
  .nicegui-content { padding: 6px !important; }
  .seqdesk-main { padding: 8px 4px !important; }
  /* The runs table stacks each run into a card: status and start time, sequence and Resume, then why
     it ended (the whole line), so nothing scrolls sideways inside the table. */
  .seqdesk-runs-table thead { display: none; }
  .seqdesk-runs-table tbody tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; column-gap: 8px;
    height: auto !important; padding: 6px 0; border-bottom: 1px solid rgba(127, 127, 127, .25); }
  .seqdesk-runs-table tbody td { display: block; height: auto !important; border: none !important;
    padding: 2px 8px !important; white-space: normal; min-width: 0; max-width: none !important; }
  .seqdesk-runs-table tbody td:nth-child(1) { grid-column: 1; grid-row: 1; }
  .seqdesk-runs-table tbody td:nth-child(2) { grid-column: 1; grid-row: 2; overflow-wrap: anywhere; }
  .seqdesk-runs-table tbody td:nth-child(3) { grid-column: 2; grid-row: 1; text-align: right; font-size: .8rem;
    opacity: .75; }
  .seqdesk-runs-table tbody td:nth-child(4) { display: none; }
  .seqdesk-runs-table tbody td:nth-child(5) { grid-column: 1 / span 2; grid-row: 3; overflow-wrap: anywhere; }
  .seqdesk-runs-table tbody td:nth-child(5):empty { display: none; }
  .seqdesk-runs-table tbody td:nth-child(6) { grid-column: 2; grid-row: 2; text-align: right; }
  .seqdesk-main, .seqdesk-main > * { min-width: 0; max-width: 100%; }
  .seqdesk-main .q-btn, .seqdesk-main .q-checkbox, .seqdesk-main .q-toggle { min-height: 44px; }
  .seqdesk-main .q-btn.q-btn--round, .seqdesk-main .q-btn.q-btn--dense { min-width: 44px; }
  .seqdesk-main .q-tab { min-height: 44px; }
  .seqdesk-main .q-card { max-width: 100%; }
  .seqdesk-main .nicegui-row.no-wrap { flex-wrap: wrap; }
  .seqdesk-main .break-anywhere, .seqdesk-main .font-mono { overflow-wrap: anywhere; }
}
"""


def assets_dir() -> Path:
    """`assets/` beside the package, or inside a PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "assets"
    return Path(__file__).resolve().parents[2] / "assets"


def register_shell() -> None:
    """Serve the icon (favicon, notifications). Called by `gui.ui.register_pages`, once per app."""
    folder = assets_dir()
    if folder.is_dir():
        app.add_static_files(ASSETS_URL, folder)


def _current_path() -> str:
    try:
        return context.client.request.url.path
    except Exception:  # noqa: BLE001 - no request (e.g. auto-index page): no highlight
        return ""


def _is_active(target: str, path: str, title: str, label: str) -> bool:
    if path:
        return path == "/" if target == "/" else path == target or path.startswith(target + "/")
    return title == label


class _PendingWatcher:
    """Keeps the Inbox badges (the nav button's and the phone menu's) and the tab title's count
    equal to the number of pending requests, and notifies new ones."""

    def __init__(self, badges: list[ui.badge], engine: Engine | None) -> None:
        self.badges = badges
        self.ids: set[str] = set()
        self.shown = 0
        if engine is None:
            for badge in badges:
                badge.set_visibility(False)
            return
        from gui.ui.signed_in import current_person

        self.engine = engine
        self.person = current_person().name
        live_events(self.engine, self._on_events, types=("interaction.",))
        ui.timer(0, self._load, once=True)

    async def _load(self) -> None:
        # what needs the person looking (on the desktop: every pending request)
        records = await self.engine.inbox(self.person, "needs_you")
        self.ids = {r.interaction_id for r in records}
        self._show()

    async def _on_events(self, events: list[Event]) -> None:
        if self.person != DESKTOP_PERSON.name:  # on a team, whose a request is depends on more than events
            await self._load()
            return
        new: list[InteractionRecord] = []
        for event in events:
            if isinstance(event, InteractionCreated) and event.record.get("status") == "pending" \
                    and event.interaction_id not in self.ids:
                self.ids.add(event.interaction_id)
                try:
                    new.append(InteractionRecord.model_validate(event.record))
                except Exception:  # noqa: BLE001 - a malformed event must not break the header
                    log.debug("could not read interaction %s for a notification", event.interaction_id)
            elif isinstance(event, InteractionEnded):
                self.ids.discard(event.interaction_id)
        self._show()
        for record in new:
            if record.interaction_id in self.ids:
                _notify(record)

    def _show(self) -> None:
        count = len(self.ids)
        for badge in self.badges:
            badge.set_text(str(count) if count < 1000 else "999+")
            badge.set_visibility(count > 0)
        if count != self.shown:
            self.shown = count
            ui.run_javascript(f"window.seqdesk && seqdesk.setCount({count})")


def _notify(record: InteractionRecord) -> None:
    request = record.request
    body = " › ".join(fmt.source_parts(request)) or fmt.preview(request)
    args = [f"{APP_NAME}: {fmt.title(request)}", body[:200], f"/inbox/{record.interaction_id}",
            f"seqdesk-{record.interaction_id}"]
    ui.run_javascript(f"window.seqdesk && seqdesk.notify({', '.join(json.dumps(a) for a in args)})")


# Quasar's own words (a table's "No data" and "Records per page", a pagination's "Next page", a date
# picker's months) come from its language pack, which NiceGUI sets once for the whole app. A page in
# another language loads that language's pack (NiceGUI ships them all) and switches Quasar to it once
# the page has mounted; English pages keep NiceGUI's default (en-US) untouched.
QUASAR_PACKS = {"zh_CN": "zh-CN"}


def _quasar_language(lang: str) -> None:
    pack = QUASAR_PACKS.get(lang)
    if pack is None:
        return
    # After NiceGUI's own scripts in the body (deferred scripts run in document order), before its app starts.
    ui.add_body_html(f'<script defer src="/_nicegui/{nicegui_version}/static/lang/{pack}.umd.prod.js"></script>')
    name = json.dumps(pack.replace("-", ""))
    ui.add_head_html("<script>document.addEventListener('DOMContentLoaded', function () {"  # NiceGUI set en-US
                     f" if (window.Quasar && Quasar.lang[{name}]) Quasar.lang.set(Quasar.lang[{name}]); }});</script>")


def _dark_mode(prefs: Prefs | None) -> None:
    """Light or dark, kept by the app (`preferences.json` in the data folder), so the window's
    choice survives a new browser profile; the browser's storage is the fallback."""
    storage: Mapping[str, Any]
    try:
        storage = app.storage.user
    except (RuntimeError, AssertionError):
        storage = {}
    kept = prefs.read().get("dark") if prefs is not None else None
    dark = ui.dark_mode(bool(kept if kept is not None else storage.get("dark", False)))

    def toggle() -> None:
        dark.value = not dark.value
        storage["dark"] = dark.value
        if prefs is not None:
            try:
                prefs.update(dark=bool(dark.value))
            except OSError as exc:
                log.warning("could not keep the dark mode choice: %s", exc)
        button.props(f"icon={'light_mode' if dark.value else 'dark_mode'}")

    button = ui.button(icon="light_mode" if dark.value else "dark_mode", on_click=toggle).props(
        "flat round color=white").mark("dark-toggle")
    button.props["aria-label"] = _("Dark mode")
    button.tooltip(_("Switch between light and dark"))


@contextmanager
def frame(title: str, ctx: AppContext) -> Iterator[None]:
    """`with frame("Inbox", ctx):` draws the header and yields inside the page's main column.

    Below 600 px wide the navigation folds into a menu button (with the Inbox count on it); every
    control in the header is at least 44 px square, for fingers."""
    ui.page_title(f"{_(title)} · {APP_NAME}")  # the nav's words are in the catalogue: other titles may be too
    ui.add_head_html(_HEAD)
    lang = html_lang(current_language())
    ui.add_head_html(f"<script>document.documentElement.lang = {json.dumps(lang)};</script>")  # CJK fonts, readers
    _quasar_language(current_language())
    ui.add_css(_CSS)
    prefs = getattr(ctx, "preferences", None)
    if prefs is not None and prefs.read().get("desktop_notifications") is False:
        ui.add_head_html("<script>seqdesk.desktopNotify = false;</script>")
    path = _current_path()
    nav = _nav(ctx)
    badges: list[ui.badge] = []
    with ui.header().classes("items-center gap-2 px-4 py-1 no-wrap seqdesk-header").mark("app-header"):
        menu_button = ui.button(icon="menu").props("flat round color=white").classes("xs").mark("nav-menu")
        menu_button.props["aria-label"] = _("Menu")
        with menu_button:
            badge = ui.badge("", color="red").props("floating rounded").mark("menu-badge")
            badge.set_visibility(False)
            badges.append(badge)
            with ui.menu().classes("seqdesk-menu").props("auto-close") as menu:
                for label, target, icon in nav:
                    with ui.item(on_click=lambda t=target: ui.navigate.to(t)).mark(f"menu-{label.lower()}") as item:
                        with ui.item_section().props("avatar"):
                            ui.icon(icon)
                        with ui.item_section():
                            ui.label(_(label))
                        if target == "/inbox":
                            with ui.item_section().props("side"):
                                count = ui.badge("", color="red").props("rounded").mark("menu-inbox-badge")
                                count.set_visibility(False)
                                badges.append(count)
                    if _is_active(target, path, title, label):
                        item.classes("seqdesk-active").props("aria-current=page")
            menu.props("anchor='bottom left' self='top left'")
        with ui.row().classes("items-center gap-2 no-wrap mr-4 min-w-0"):
            ui.image(f"{ASSETS_URL}/icon.svg").classes("w-7 h-7 shrink-0")
            ui.label(APP_NAME).classes("text-lg font-bold")
        with ui.row().classes("items-center gap-1 no-wrap seqdesk-nav gt-xs"):
            for label, target, icon in nav:
                button = ui.button(icon=icon, on_click=lambda t=target: ui.navigate.to(t)).props(
                    "flat no-caps no-wrap color=white").mark(f"nav-{label.lower()}")
                button.props["aria-label"] = _(label)
                with button:
                    ui.label(_(label)).classes("gt-sm ml-2")
                if _is_active(target, path, title, label):
                    button.classes("seqdesk-active").props("aria-current=page")
                if target == "/inbox":
                    with button:
                        badge = ui.badge("", color="red").props("floating rounded").mark("inbox-badge")
                        badge.set_visibility(False)
                        badges.append(badge)
        _PendingWatcher(badges, ctx.slot.engine)
        ui.space()
        if getattr(ctx, "team", False):
            _signed_in_button()
        _dark_mode(prefs)
    with ui.column().classes("w-full max-w-6xl mx-auto p-4 gap-4 seqdesk-main"):
        _store_notices(ctx.notices)
        yield


@contextmanager
def plain_frame(title: str) -> Iterator[None]:
    """The app's look without its workings: the header with the icon and name (no navigation, no
    Inbox count: nothing that needs the engine or a signed-in person), then the main column. For a
    page drawn outside the page list (an address that is no page)."""
    ui.page_title(f"{title} · {APP_NAME}")
    lang = html_lang(current_language())
    ui.add_head_html(f"<script>document.documentElement.lang = {json.dumps(lang)};</script>")
    ui.add_css(_CSS)
    with ui.header().classes("items-center gap-2 px-4 py-1 no-wrap seqdesk-header").mark("app-header"):
        with ui.row().classes("items-center gap-2 no-wrap mr-4 min-w-0 min-h-[44px]"):
            ui.image(f"{ASSETS_URL}/icon.svg").classes("w-7 h-7 shrink-0")
            ui.label(APP_NAME).classes("text-lg font-bold")
    with ui.column().classes("w-full max-w-6xl mx-auto p-4 gap-4 seqdesk-main"):
        yield


def _nav(ctx: AppContext) -> list[tuple[str, str, str]]:
    """The navigation: on a team server, People too for an admin."""
    if not getattr(ctx, "team", False):
        return NAV
    from gui.core.people import ADMIN
    from gui.ui.signed_in import current_person

    return [*NAV, (N_("People"), "/people", "group")] if current_person().has(ADMIN) else NAV


def _signed_in_button() -> None:
    """Who is signed in, opening their page (tokens, signing out)."""
    from gui.ui.signed_in import current_person

    name = current_person().name
    button = ui.button(icon="account_circle", on_click=lambda: ui.navigate.to("/me")).props(
        "flat no-caps no-wrap color=white").mark("nav-me")
    button.props["aria-label"] = _("Signed in as {name}").format(name=name)
    with button:
        ui.label(name).classes("gt-sm ml-2")


def _store_notices(notices: list[str]) -> None:
    """What the store had to repair at open (see `gui.store.recovery`), until the person dismisses it."""
    def dismiss(text: str) -> None:
        if text in notices:
            notices.remove(text)

    for text in list(notices):
        StoreNotice(text, on_dismiss=functools.partial(dismiss, text))
