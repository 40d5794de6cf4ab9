"""What a tool gave back besides text, shown as it is: images, a player for audio, links to resources
(with their names), embedded text files; and the lines a tool's server logged during the call.

The parts come from an MCP server, so nothing from them is trusted as markup: an image or a sound is
shown only with a MIME type that is one and base64 data (`gui.core.tools.media`), through NiceGUI's own
image and audio elements; a link is clickable only when it is http or https (opened in a new tab,
without telling the site where it came from); any other address (`file:`, `javascript:`, a server's
own scheme) is shown as text with its name.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from gui.core.runs import LogLine
from gui.core.tools import good_base64, good_mime, parts_of, safe_link
from gui.i18n import N_, _, ngettext

LABEL = "text-xs text-gray-500 dark:text-gray-400"
_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/svg+xml")


def media_preview(value: Any) -> str | None:
    """One line for a card: the text, then what else came back ("1 picture, 2 links"); None when plain."""
    parts = parts_of(value)
    if parts is None:
        return None
    counts: dict[str, int] = {}
    for part in parts:
        if part["type"] != "text":
            counts[part["type"]] = counts.get(part["type"], 0) + 1
    words = {"image": lambda n: ngettext("{n} picture", "{n} pictures", n),
             "audio": lambda n: ngettext("{n} sound", "{n} sounds", n),
             "resource_link": lambda n: ngettext("{n} link", "{n} links", n),
             "resource": lambda n: ngettext("{n} file", "{n} files", n)}
    extra = _(", ").join(words[k](n).format(n=n) for k, n in counts.items())
    text = str(value.get("text") or "").strip()
    return f"{text} ({extra})" if text else extra


def data_url(mime: str, data: str) -> str:
    return f"data:{mime};base64,{''.join(data.split())}"


class MediaView(ui.column):
    """Every part of a result in order: text as text, images shown, audio playable, links to click."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.classes("w-full gap-2 min-w-0").mark("result-media")
        with self:
            for part in parts_of(value) or []:
                self._part(part)

    def _part(self, part: dict[str, Any]) -> None:
        kind = part["type"]
        mime, data = part.get("mime_type"), part.get("data")
        if kind == "text":
            ui.label(str(part.get("text", ""))).classes("text-sm whitespace-pre-wrap break-words")
        elif part.get("omitted"):
            ui.label(_("A {kind} that is not kept: {why}").format(kind=_kind_word(kind), why=part["omitted"])).classes(
                "text-sm text-gray-600 dark:text-gray-400")
        elif kind == "image" and mime in _IMAGES and good_base64(data):
            ui.image(data_url(str(mime), str(data))).classes("max-w-full w-auto max-h-80 rounded border "
                                                           "border-gray-200 dark:border-gray-700").props(
                'fit=scale-down alt="' + _("A picture the tool gave back") + '"').style("min-width:4rem").mark(
                "result-image")
        elif kind == "audio" and good_mime(mime) and str(mime).startswith("audio/") and good_base64(data):
            ui.audio(data_url(str(mime), str(data))).classes("w-full max-w-md").mark("result-audio")
        elif kind == "resource_link":
            self._link(part)
        elif kind == "resource":
            ui.label(_("File {address}").format(address=part.get("uri", ""))).classes(LABEL + " break-all")
            if isinstance(part.get("text"), str):
                ui.label(part["text"]).classes("font-mono text-sm whitespace-pre-wrap break-all rounded p-2 "
                                               "bg-gray-50 dark:bg-gray-900")
            else:
                ui.label(_("(binary content, not shown)")).classes("text-sm text-gray-600 dark:text-gray-400")
        else:
            ui.label(_("A {kind} of a kind ({type}) that cannot be shown here").format(
                kind=_kind_word(kind), type=mime or _("unknown"))).classes(
                "text-sm text-gray-600 dark:text-gray-400")

    @staticmethod
    def _link(part: dict[str, Any]) -> None:
        uri = str(part.get("uri", ""))
        name = str(part.get("title") or part.get("name") or uri)
        href = safe_link(uri)
        with ui.row(wrap=False).classes("items-center gap-2 min-w-0"):
            ui.icon("link" if href else "description").classes("text-gray-500 dark:text-gray-400")
            with ui.column().classes("gap-0 min-w-0"):
                if href:
                    ui.link(name, href, new_tab=True).props('rel="noopener noreferrer"').classes(
                        "font-medium break-all").mark("result-link")
                else:
                    ui.label(name).classes("font-medium break-all").mark("result-link")
                ui.label(uri).classes(LABEL + " break-all")


def _kind_word(kind: str) -> str:
    word = {"image": N_("picture"), "audio": N_("sound"), "resource": N_("file"), "resource_link": N_("link")}.get(
        kind, N_("part"))
    return _(word)


_LEVEL_COLOURS = {"warning": "text-amber-700 dark:text-amber-300", "error": "text-red-700 dark:text-red-400",
                  "critical": "text-red-700 dark:text-red-400", "alert": "text-red-700 dark:text-red-400",
                  "emergency": "text-red-700 dark:text-red-400"}


class ToolLogView(ui.column):
    """The lines a tool's server logged, oldest first, in a box that scrolls."""

    def __init__(self, lines: list[LogLine]) -> None:
        super().__init__()
        self.classes("w-full gap-1").mark("tool-log")
        with self:
            ui.label(ngettext("What it reported ({n} line)", "What it reported ({n} lines)", len(lines)).format(
                n=len(lines))).classes(
                "text-sm font-semibold text-gray-700 dark:text-gray-300")
            with ui.column().classes("w-full gap-0 max-h-48 overflow-y-auto rounded p-2 bg-gray-50 dark:bg-gray-900"):
                for line in lines:
                    colour = _LEVEL_COLOURS.get(line.level, "text-gray-800 dark:text-gray-200")
                    ui.label(line.text).classes(f"font-mono text-xs whitespace-pre-wrap break-all {colour}")
