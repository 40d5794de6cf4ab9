"""The inbox's keyboard shortcuts: J/K move through requests, A/D/N answer the open approval, ? lists them.

Keys must never answer a request the person did not mean to answer (claude-code#37955, codex#31037:
prompts that appeared under someone's fingers turned their typing into approvals). So:

- nothing happens while the person types in a field (the note, a question, a form); Esc leaves it;
- the answering keys (A, D, N) do nothing for half a second after a request appears or changes,
  and nothing while a key is held down (auto-repeat would otherwise answer request after request);
- the letters are fixed (claude-code#47201): A approves once, D denies, N goes to the note, on every
  kind of approval; on a question or a form they answer nothing, and the person is told why;
- no key chooses "Always allow": that is a mouse decision, made on purpose.

`KeyRules` is the decision alone (pure, unit-tested); `InboxShortcuts` wires it into a page: a
listener in the browser that already drops typing, modifier and repeated keys, a hidden element the
browser sends the rest to, and the "?" dialog. The browser keeps its own half-second guard too, so
the guard holds even if the server is slow to hear about a key.
"""

from __future__ import annotations

import html
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from nicegui import ui

from gui.i18n import N_, _

SETTLE_SECONDS = 0.5

Action = Literal["next", "previous", "help", "approve", "deny", "note", "approvals-only"]
NAVIGATION: dict[str, Action] = {"j": "next", "k": "previous"}
ANSWERS: dict[str, Action] = {"a": "approve", "d": "deny", "n": "note"}
APPROVAL_KINDS = ("shell", "tool")

SHORTCUTS: list[tuple[str, str]] = [
    ("J", N_("Open the next request")),
    ("K", N_("Open the previous request")),
    ("Enter", N_("Open the request picked in the list")),
    ("A", N_("Approve once (Run once), with your change if you made one")),
    ("D", N_("Deny (Don't run); your note is sent with it")),
    ("N", N_("Write a note: tell it what to do instead")),
    ("Esc", N_("Leave the note field, close this list")),
    ("?", N_("Show this list")),
]


@dataclass(frozen=True)
class KeyPress:
    """One key as the browser saw it."""

    key: str
    typing: bool = False
    repeat: bool = False
    ctrl: bool = False
    meta: bool = False
    alt: bool = False

    @classmethod
    def from_event(cls, args: Any) -> KeyPress:
        """From the browser's message: `{"key": …, "typing": …, …}`, perhaps wrapped in `{"detail": …}`."""
        data = args.get("detail", args) if isinstance(args, dict) else {}
        data = data if isinstance(data, dict) else {}
        return cls(key=str(data.get("key") or ""), typing=bool(data.get("typing")), repeat=bool(data.get("repeat")),
                   ctrl=bool(data.get("ctrl")), meta=bool(data.get("meta")), alt=bool(data.get("alt")))


class KeyRules:
    """What a key press means in the inbox right now, or None when it must do nothing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, settle_seconds: float = SETTLE_SECONDS) -> None:
        self.clock = clock
        self.settle_seconds = settle_seconds
        self.ready_at = 0.0

    def settle(self) -> None:
        """A request appeared or changed: the answering keys wait a moment before they work again."""
        self.ready_at = self.clock() + self.settle_seconds

    @property
    def settling(self) -> bool:
        return self.clock() < self.ready_at

    def decide(self, press: KeyPress, *, opened: str | None) -> Action | None:
        """`opened` is the kind of the open request that can still be answered ("shell", "tool",
        "question", "form"), or None when nothing answerable is open."""
        if press.typing or press.ctrl or press.meta or press.alt:
            return None
        key = press.key.lower() if len(press.key) == 1 else press.key
        if key == "?":
            return "help"
        if key in NAVIGATION:
            return NAVIGATION[key]
        if key not in ANSWERS or press.repeat or self.settling or opened is None:
            return None
        return ANSWERS[key] if opened in APPROVAL_KINDS else "approvals-only"


LISTENER_JS = """
window.seqdesk = window.seqdesk || {};
seqdesk.inboxReadyAt = 0;
seqdesk.inboxSettleMs = %d;
seqdesk.inboxSettle = function (ms) { seqdesk.inboxReadyAt = performance.now() + ms; };
document.addEventListener('keydown', function (e) {
  const target = document.querySelector('.seqdesk-inbox-keys');
  if (!target || e.isComposing) return;
  const el = e.target;
  const typing = !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
  if (typing) { if (e.key === 'Escape') el.blur(); return; }
  if (e.ctrlKey || e.metaKey || e.altKey || e.key.length !== 1) return;
  const key = e.key.toLowerCase();
  if (!'jkadn?'.includes(key)) return;
  if (key !== '?' && document.querySelector('.q-dialog')) return;
  e.preventDefault();
  if ('adn'.includes(key) && (e.repeat || performance.now() < seqdesk.inboxReadyAt)) return;
  // J/K open another request: the answering keys wait from this press on, not from when the
  // server's answer comes back (an A typed straight after J must never answer anything).
  if ('jk'.includes(key) && seqdesk.inboxSettleMs) seqdesk.inboxReadyAt = performance.now() + seqdesk.inboxSettleMs;
  target.dispatchEvent(new CustomEvent('seqdeskkey', {detail: {key: key, repeat: e.repeat}}));
}, true);
"""

Move = Callable[[int], Awaitable[None] | None]
Opened = Callable[[], tuple[str | None, Any]]


class InboxShortcuts:
    """The keys of one inbox page. `opened()` gives the open answerable request's kind and its detail
    (with `shortcut(action)`); `move(+1 / -1)` opens the next or previous request."""

    def __init__(self, *, move: Move, opened: Opened, active: Callable[[], bool]) -> None:
        self.rules = KeyRules()
        self._move, self._opened, self._active = move, opened, active
        # The page's own client: `settle` is also called from handlers whose element is gone by then
        # (the scope dialog of a request just answered), where `ui.run_javascript` has no page.
        self.client = ui.context.client
        ui.add_body_html(f"<script>{LISTENER_JS % round(SETTLE_SECONDS * 1000)}</script>")
        self.target = KeyTarget(self)
        self.target.on("seqdeskkey", self._on_key, args=["detail"])
        self.dialog = _help_dialog()

    def settle(self) -> None:
        self.rules.settle()
        ms = round(self.rules.settle_seconds * 1000)
        self.client.run_javascript(f"window.seqdesk && seqdesk.inboxSettle && seqdesk.inboxSettle({ms})")

    def show_help(self) -> None:
        self.dialog.open()

    async def _on_key(self, event: Any) -> None:
        await self.handle(KeyPress.from_event(event.args))

    async def handle(self, press: KeyPress) -> Action | None:
        """Do what `press` means; returns the action taken (None: the key did nothing)."""
        kind, detail = self._opened()
        action = self.rules.decide(press, opened=kind)
        if action == "help":
            if self.dialog.value:
                self.dialog.close()
            else:
                self.dialog.open()
            return action
        if action is None or self.dialog.value or not self._active():
            return None
        if action in ("next", "previous"):
            # Settle before the move's first await: an answering key that arrives while the other
            # request loads is dropped, whichever request it would have reached.
            self.rules.settle()
            result = self._move(1 if action == "next" else -1)
            if inspect.isawaitable(result):
                await result
        elif action == "approvals-only":
            ui.notify("A, D and N answer approvals only: use the form to answer this request.", position="bottom")
        elif detail is not None:
            await detail.shortcut(action)
        return action


class KeyTarget(ui.element):
    """The hidden element the browser sends the keys to (tests reach the shortcuts through it)."""

    def __init__(self, shortcuts: InboxShortcuts) -> None:
        super().__init__("div")
        self.shortcuts = shortcuts
        self.classes("seqdesk-inbox-keys hidden").mark("inbox-keys")


def _help_dialog() -> ui.dialog:
    with ui.dialog() as dialog, ui.card().classes("gap-3 p-5 w-[28rem] max-w-full").mark("shortcuts-dialog"):
        with ui.row().classes("w-full items-center"):
            ui.icon("keyboard", size="sm")
            ui.label(_("Keyboard shortcuts")).classes("text-lg font-medium")
            ui.space()
            ui.button(icon="close", on_click=dialog.close).props("flat round dense").props(
                'aria-label="' + _("Close") + '"')
        with ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-2 items-center"):
            for key, words in SHORTCUTS:
                ui.html(f"<kbd class='seqdesk-kbd'>{key}</kbd>", sanitize=False)
                ui.label(_(words)).classes("text-sm")
        ui.label(_("There is no key for Always allow: choose it with the mouse. Keys do nothing while you type "
                   "in a field, and the answering keys wait half a second after a request appears or changes, "
                   "so a key meant for something else never answers one.")).classes("text-xs opacity-70")
    return dialog


def key_hint_text(approve: str, deny: str) -> str:
    """The one-line reminder under an approval's buttons, as HTML: A says what the approve button says."""
    kbd = "<kbd class='seqdesk-kbd'>{}</kbd>".format
    note, moves, every = _("note"), _("next/previous"), _("all shortcuts")
    approve, deny = html.escape(approve, quote=False), html.escape(deny, quote=False)
    return (f"{kbd('A')} {approve} · {kbd('D')} {deny} · {kbd('N')} {note} · "
            f"{kbd('J')}/{kbd('K')} {moves} · {kbd('?')} {every}")


PHONE_HIDDEN = "gt-xs"  # Quasar: shown only wider than a phone (600 px and up); a phone has no keyboard shortcuts


def key_hint(approve: str, deny: str) -> ui.html:
    return ui.html(key_hint_text(approve, deny), sanitize=False).classes(f"text-xs opacity-70 {PHONE_HIDDEN}").mark(
        "key-hint")
