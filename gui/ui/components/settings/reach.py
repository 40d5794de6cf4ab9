"""The Settings cards that reach the person away from the desktop: their phone and their
notification channels (one hook in the Settings page draws them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import context

from gui.api.auth import DEVICE_SCOPE_KEY
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
    if not ctx.team:  # a team server offers no pairing: each person signs in on their phone
        PhoneCard(ctx.phone, on_phone=phone)
    NotificationsCard(ctx.notifier, read_only=phone, prefs=ctx.preferences)
