"""The Settings cards that reach the person away from the desktop: their phone and their
notification channels (one hook in the Settings page draws them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import context, ui

from gui.api.auth import DEVICE_SCOPE_KEY
from gui.i18n import _
from gui.ui.components.settings.notifications import NotificationsCard
from gui.ui.components.settings.phone import PhoneCard

if TYPE_CHECKING:
    from gui.context import AppContext


def on_phone() -> bool:
    """This page was opened from a paired phone (it may look, not change who is reached)."""
    try:
        return bool(context.client.request.scope.get(DEVICE_SCOPE_KEY))
    except Exception:  # noqa: BLE001 - no request (a test's auto-index page): the computer
        return False


def settings_hooks(ctx: AppContext) -> None:
    phone = on_phone()
    if ctx.team:  # a team server offers no pairing: each person signs in on their phone
        team_phones_card()
    else:
        PhoneCard(ctx.phone, on_phone=phone)
    NotificationsCard(ctx.notifier, read_only=phone, prefs=ctx.preferences)


def team_phones_card() -> None:
    """What a team server says instead of the pairing card: phones sign in like computers."""
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("team-phones"):
        ui.label(_("Your phone")).classes("text-lg font-semibold")
        ui.label(_("A team server pairs no phones. On your phone, open this server's address in the browser "
                   "and sign in as you do on a computer: the inbox, runs and approvals are all there.")).classes(
            "text-sm text-gray-600 dark:text-gray-400")
