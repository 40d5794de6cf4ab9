"""Finding words on screen that were not translated: walk a page's element tree (or an HTML page)
and report every run of Latin letters that is not a name or keyword on the allow-list.

Used by tests/ui/test_i18n_screens.py; extend ALLOWED only with proper names and the format's
keywords, never with English words (those belong in the catalogue)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser

from nicegui import ui

from gui.i18n import DATA

# Proper names, keywords and technical names that stay as they are in every language.
ALLOWED = frozenset({
    "SeqDesk", "MCP", "Wi-Fi", "Webhook", "ntfy", "JSON", "STARTTLS", "SSL", "API", "URL", "KEY=value",
    "SEQDESK_DATA", "http", "https", "uvx", "mcp-server-time", "time", "English", "HTTP",
    "GitHub", "Google", "ID", "SHA",  # "客户端 ID": what the Chinese consoles of sign-in services call it
    "Temporal",  # the workflow service runs run on in a team (a product's name)
    "ms", "s", "m", "h",  # the format's units of time, as a duration is written ("30m")
    "role", "person", "approvers", "required", "self_approve", "remind_after", "escalate_after", "escalate_to",
    "expire_after",  # the format's keys and prefixes for who answers ("role:oncall")
})
TEXT_PROPS = ("label", "placeholder", "aria-label", "title", "hint", "error-message", "prefix", "suffix", "caption")
_SKIP = [re.compile(p) for p in (r"\{[a-z_]+\}", r"[a-z][a-z0-9+.-]*://\S*", r"\S+@\S+",
                                 r"(?<![\w/])/[\w./-]+",  # a path
                                 r"[\w-]+(?:\.[\w-]+)+", r"\b[a-z]{2}-[A-Z]{2}\b",
                                 r"(?<![\w-])--[a-z][a-z-]*",  # a command-line flag (--executor)
                                 r'"[a-z_]+":')]  # a format key as written in a document ("on": …)
_LATIN = re.compile(r"[A-Za-z]+(?:[-_=][A-Za-z]+)*")


def untranslated_runs(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The runs of Latin letters in `text` that are neither allowed nor an address/name/placeholder."""
    ok = ALLOWED | set(allowed)
    for pattern in _SKIP:
        text = pattern.sub(" ", text)
    return [run for run in _LATIN.findall(text) if run not in ok]


def _texts(element: ui.element) -> Iterator[tuple[str, str]]:
    text = getattr(element, "text", None)
    if isinstance(text, str) and text:
        yield "text", text
    for name in TEXT_PROPS:
        value = element.props.get(name)
        if isinstance(value, str) and value:
            yield name, value
    options = element.props.get("options")
    if isinstance(options, list):
        for option in options:
            label = option.get("label") if isinstance(option, dict) else option
            if isinstance(label, str):
                yield "option", label


def _is_data(element: ui.element) -> bool:
    return DATA in element.classes


def screen_problems(root: ui.element, allowed: Iterable[str] = ()) -> list[str]:
    """One line per untranslated word on screen under `root`: the element, where, the text."""
    problems: list[str] = []
    for element in [root, *root.descendants()]:
        if _is_data(element):
            continue
        for where, text in _texts(element):
            runs = untranslated_runs(text, allowed)
            if runs:
                marker = " ".join(element._markers) if getattr(element, "_markers", None) else ""
                problems.append(f"{type(element).__name__}[{marker}] {where}={text!r}: {runs}")
    return problems


class _HtmlTexts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.texts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.append(data.strip())


def html_problems(page: str, allowed: Iterable[str] = ()) -> list[str]:
    parser = _HtmlTexts()
    parser.feed(page)
    return [f"{text!r}: {runs}" for text in parser.texts if (runs := untranslated_runs(text, allowed))]
