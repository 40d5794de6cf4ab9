"""Settings → Language: English or 简体中文, kept by the app (like dark mode) so the choice outlives
the browser's storage, and by this browser; the page is drawn again in the new language."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from nicegui import ui

from gui import i18n
from gui.i18n import _

if TYPE_CHECKING:
    from gui.context import AppContext

log = logging.getLogger(__name__)


def choose(ctx: AppContext, lang: str) -> None:
    lang = i18n.normalize(lang)
    i18n.choose_for_page(lang)
    prefs = getattr(ctx, "preferences", None)
    if prefs is not None:
        try:
            prefs.update(lang=lang)
            i18n.set_stored(lang)
        except OSError as exc:
            log.warning("could not keep the language choice: %s", exc)


def language_card(ctx: AppContext) -> None:
    current = i18n.current_language()

    def changed(event: Any) -> None:
        if event.value == current:
            return
        choose(ctx, str(event.value))
        ui.navigate.reload()

    with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("language-card"):
        ui.label(_("Language")).classes("text-lg font-semibold")
        ui.label(_("The language of SeqDesk's screens and messages. Sequence files and their keywords "
                   "stay as they are.")).classes("text-sm text-gray-600 dark:text-gray-400")
        ui.toggle(dict(i18n.LANGUAGES), value=current, on_change=changed).props("no-caps unelevated").mark(
            "language-switch")
