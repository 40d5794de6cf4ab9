"""The Settings cards that reach the person away from the desktop: their phone and their
notification channels (one hook in the Settings page draws them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import context, ui

from gui.api.auth import DEVICE_SCOPE_KEY
from gui.api.pairing import qr_svg
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
        team_phones_card(ctx.team_address, ctx.url)
    else:
        PhoneCard(ctx.phone, on_phone=phone)
    NotificationsCard(ctx.notifier, read_only=phone, prefs=ctx.preferences)


def team_phones_card(address: str | None, own: str | None) -> None:
    """What a team server says instead of the pairing card: phones sign in like computers, at the
    team's one address (`AppContext.team_address`), whichever of its servers answers there. A team
    opens no phones' listener per server: its servers run side by side, often on one machine (one
    network address, where each would need a port of its own) or behind one proxy, and a phone paired
    with one of them would lose SeqDesk when that one stops. The team's address, where people sign in,
    serves phones as it serves computers; `address` None: this server answers only on loopback (`own`)."""
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("team-phones"):
        ui.label(_("Your phone")).classes("text-lg font-semibold")
        muted = "text-sm text-gray-600 dark:text-gray-400"
        if address is not None:
            ui.label(_("A team server pairs no phones: every server of the team answers at one address. On your "
                       "phone, open it in the browser and sign in as you do on a computer: the inbox, runs and "
                       "approvals are all there.")).classes(muted)
            ui.link(address, address).classes("text-sm break-all").mark("team-address")
            ui.image(qr_svg(address)).classes("w-40 h-40").props("no-spinner no-transition").mark("team-qr")
            return
        ui.label(_("A team server pairs no phones: each person signs in at the team's address, on a phone as on a "
                   "computer. This server answers only on this computer ({own}): a phone reaches the team at the "
                   "address your proxy or network gives it. Set SEQDESK_PUBLIC_URL to that address on every "
                   "server of the team, and it is shown here.").format(own=own or "127.0.0.1")).classes(muted)
