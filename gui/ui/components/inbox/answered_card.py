"""What stands where the answered request was when the page opens nothing after it: the answer was
sent, and what the list beside it holds (`follow`, from the same list the page draws), with a link
to the run and a button to open what is waiting."""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from gui.i18n import _, format_number, ngettext


class AnsweredCard(ui.card):
    def __init__(self, run_id: str, *, open_first: Callable[[], None]) -> None:
        super().__init__()
        self.props("flat bordered").classes("w-full p-4 gap-2").mark("answered-card")
        with self:
            self.words = ui.label().classes("text-base").mark("answered-words")
            with ui.row().classes("items-center gap-3"):
                ui.link(_("See how the run goes"), f"/run/{run_id}").mark("see-run")
                self.open_next = ui.button(_("Open it"), icon="arrow_forward", on_click=open_first).props(
                    "flat dense no-caps").mark("open-next")

    def follow(self, waiting: int) -> None:
        """Say what the list holds: `waiting` is how many requests it lists."""
        self.words.set_text(
            _("Your answer was sent. Nothing else is waiting for you.") if not waiting else
            ngettext("Your answer was sent. {n} other request is waiting for you.",
                     "Your answer was sent. {n} other requests are waiting for you.", waiting).format(
                n=format_number(waiting)))
        self.open_next.set_visibility(bool(waiting))
