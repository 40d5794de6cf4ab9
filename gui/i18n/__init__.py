"""SeqDesk's words in the person's language: English (the source) and 简体中文.

Every sentence on screen is written in English in the code as `_("…")` (or `ngettext(one, many, n)`,
or `N_("…")` for a constant translated where it is shown) and looked up in the catalogue
`gui/i18n/locale/<lang>/LC_MESSAGES/messages.po`. Only the .po files are kept in the repository:
they are read with babel at first use and compiled in memory (`babel.messages.mofile.write_mo`),
so no binary .mo file can drift from its text and a translator's edit shows at the next start.
`python -m gui.i18n.update` extracts the words from gui/ and merges them into each catalogue.

Which language: the one a browser chose in Settings (kept in `app.storage.user`), else the one the
app was started with (`SEQDESK_LANG`, `--lang`), else the app's stored choice (`preferences.json`,
written by the same switch), else English. It is looked up once per browser page (a NiceGUI
client) and kept for it; outside a page (the CLI, plain HTML pages) `use_language` or the app's
default applies. Dates and numbers go through `format_datetime` / `format_number` (babel), in the
same language.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import gettext
import io
import sys
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gui.core.errors import Invalid

ENGLISH = "en"
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}  # each in its own words
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
STORAGE_KEY = "lang"
DATA = "seqdesk-data"  # the class of an element that shows data (a name, a path, a command): never translated

_lock = threading.Lock()
_catalogues: dict[str, gettext.NullTranslations] = {}
_default: dict[str, str | None] = {"started": None, "stored": None}  # --lang / SEQDESK_LANG; preferences.json
_per_client: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_override: contextvars.ContextVar[str | None] = contextvars.ContextVar("seqdesk_lang", default=None)


class UnknownLanguage(Invalid):
    pass


def normalize(lang: str) -> str:
    """`zh-CN`, `zh_cn`, `zh`, `zh-Hans` → `zh_CN`; `en-GB` → `en`. Anything else: a clear error."""
    text = lang.strip().replace("-", "_")
    low = text.lower()
    if low in ("zh", "zh_cn", "zh_hans", "zh_hans_cn", "zh_sg"):
        return "zh_CN"
    if low == "en" or low.startswith("en_"):
        return ENGLISH
    known = ", ".join(k.replace("_", "-") for k in LANGUAGES)
    raise UnknownLanguage(f"the language “{lang}” is not one SeqDesk speaks: choose one of {known}")


def _maybe(lang: Any) -> str | None:
    if not isinstance(lang, str) or not lang.strip():
        return None
    try:
        return normalize(lang)
    except UnknownLanguage:
        return None


def set_defaults(*, started: str | None = None, stored: str | None = None) -> None:
    """What the app was started with (`--lang`, `SEQDESK_LANG`) and what it has kept (preferences.json)."""
    _default["started"] = _maybe(started)
    _default["stored"] = _maybe(stored)


def defaults() -> tuple[str | None, str | None]:
    """What the app was started with and what it has kept, as `set_defaults` was last told: (started, stored)."""
    return _default["started"], _default["stored"]


def set_stored(lang: str | None) -> None:
    _default["stored"] = _maybe(lang)


def default_language() -> str:
    """The language outside a browser page: the started one, else the stored one, else English."""
    return _override.get() or _default["started"] or _default["stored"] or ENGLISH


def _client() -> Any | None:
    if "nicegui" not in sys.modules:  # NiceGUI not even loaded (the CLI): no page, and no loading it to learn so
        return None
    try:
        from nicegui.slot import Slot

        if not Slot.get_stack():  # no page here; and asking `context` now would put NiceGUI in script mode
            return None           # (before `ui.run`, as the CLI does when it words its help), breaking the app
        from nicegui import context

        return context.client
    except Exception:  # noqa: BLE001 - no NiceGUI page here (the CLI, an HTML route, a worker)
        return None


def _browser_choice() -> str | None:
    try:
        from nicegui import app

        return _maybe(app.storage.user.get(STORAGE_KEY))
    except Exception:  # noqa: BLE001 - no browser storage here (no request, or no storage secret)
        return None


def current_language() -> str:
    """This browser page's language (decided at its first word, then kept), or the default."""
    forced = _override.get()
    if forced:
        return forced
    client = _client()
    if client is None:
        return default_language()
    lang = _per_client.get(client)
    if lang is None:
        lang = _browser_choice() or default_language()
        try:
            _per_client[client] = lang
        except TypeError:
            return lang
    return lang


def choose_for_page(lang: str) -> None:
    """The Settings switch: this page (and this browser, from its next page on) speaks `lang`."""
    lang = normalize(lang)
    client = _client()
    if client is not None:
        _per_client[client] = lang
    try:
        from nicegui import app

        app.storage.user[STORAGE_KEY] = lang
    except Exception:  # noqa: BLE001 - no browser storage: the app's stored choice still applies
        pass


@contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Speak `lang` inside this block (the CLI, an HTML page answering a request, a test)."""
    token = _override.set(normalize(lang))
    try:
        yield
    finally:
        _override.reset(token)


def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of `lang` (English: the words as written)."""
    with _lock:
        found = _catalogues.get(lang)
        if found is None:
            found = _catalogues[lang] = _load(lang)
        return found


def _load(lang: str) -> gettext.NullTranslations:
    if lang == ENGLISH:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as file:
        catalog = read_po(file, locale=lang)
    catalog.fuzzy = False  # the header (its plural rule) is always wanted
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out, as gettext does
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _(message: str) -> str:
    return catalogue(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return catalogue(current_language()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a constant for the catalogue; `_()` translates it where it is shown."""
    return message


def babel_locale(lang: str | None = None) -> str:
    return (lang or current_language())


def format_datetime(when: dt.datetime | float, form: str = "short") -> str:
    """A moment in the person's language and this computer's time zone ("short": date and time,
    "time": hour and minute, "date": the date alone, "medium": date and time to the second).
    A number is a Unix timestamp."""
    from babel import dates

    moment = dt.datetime.fromtimestamp(when).astimezone() if isinstance(when, int | float) else when
    if moment.tzinfo is None:
        moment = moment.astimezone()
    locale = babel_locale()
    if form == "time":
        return dates.format_time(moment, "short", tzinfo=moment.tzinfo, locale=locale)
    if form == "date":
        return dates.format_date(moment.date(), "medium", locale=locale)
    if form == "medium":
        return dates.format_datetime(moment, "medium", tzinfo=moment.tzinfo, locale=locale)
    return dates.format_datetime(moment, "short", tzinfo=moment.tzinfo, locale=locale)


def format_number(value: float, *, decimals: int | None = None) -> str:
    from babel import numbers

    if decimals is not None:
        return numbers.format_decimal(value, format="#,##0." + "0" * decimals if decimals else "#,##0",
                                      locale=babel_locale())
    return numbers.format_decimal(value, locale=babel_locale())


def html_lang(lang: str | None = None) -> str:
    """The `lang` attribute of a page (`zh-CN`, `en`)."""
    return (lang or current_language()).replace("_", "-")
