"""Your page on a team server (`/me`): who you are here and your roles, your personal tokens (for the
CLI and `seqdesk mcp`: made, shown once, revoked), and signing out on every device."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from nicegui import ui

from gui.core.errors import SeqDeskError
from gui.i18n import _
from gui.ui.signed_in import current_person
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext


def _when(at_ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at_ms / 1000))


async def me_page(ctx: AppContext) -> None:
    accounts = ctx.accounts
    me = current_person()
    with frame("You", ctx):
        ui.label(me.name).classes("text-2xl font-semibold").mark("me-name")
        roles = ", ".join(sorted(me.roles)) or _("none: you may look at sequences, runs and requests")
        ui.label(_("Your roles: {roles}").format(roles=roles)).classes("text-sm").mark("me-roles")
        with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("tokens-card"):
            ui.label(_("Personal tokens")).classes("text-lg font-semibold")
            ui.label(_("A token lets the CLI or seqdesk mcp act as you: set SEQDESK_CONNECT to this SeqDesk's "
                       "address and SEQDESK_TOKEN to the token. Each has a name, recorded with every answer given "
                       "with it. It is shown once; revoke it when it is no longer needed.")).classes("text-sm")
            with ui.row().classes("w-full items-end gap-2"):
                label = ui.input(_("Name of the new token (for example: laptop CLI)")).classes(
                    "w-full max-w-md").mark("token-name")

                async def make() -> None:
                    made.clear()
                    try:
                        secret = await accounts.make_token(me.name, label.value or "")
                    except SeqDeskError as exc:
                        with made:
                            ui.label(str(exc)).classes("text-negative").mark("token-error")
                        return
                    with made:
                        ui.label(_("Copy it now: it is not shown again.")).classes("text-sm font-medium")
                        ui.input(value=secret).props("readonly outlined dense").classes("w-full font-mono").mark(
                            "token-secret")
                    label.value = ""
                    await tokens.refresh()

            ui.button(_("Make token"), on_click=make).mark("make-token")
            made = ui.column().classes("w-full gap-1")

            @ui.refreshable
            async def tokens() -> None:
                listed = await accounts.tokens(me.name)
                if not listed:
                    ui.label(_("You have no personal tokens.")).classes("text-sm text-gray-500")
                for token in listed:
                    with ui.row().classes("w-full items-center gap-3 py-1").mark(f"token-{token.label}"):
                        ui.label(token.label).classes("font-medium grow")
                        ui.label(_("made {when}").format(when=_when(token.created_at))).classes("text-xs")

                        async def revoke(token_id: str = token.token_id) -> None:
                            await accounts.revoke_token(me.name, token_id)
                            await tokens.refresh()

                        ui.button(_("Revoke"), on_click=revoke).props("flat dense no-caps color=negative").mark(
                            f"revoke-{token.label}")

            await tokens()
        with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("sign-out-card"):
            ui.label(_("Signing out")).classes("text-lg font-semibold")

            async def everywhere() -> None:
                # every open page of this person, this one too, is told to reload as the sessions end
                # (`reload_pages_of`), and the gate sends each to sign in: a second navigation from here
                # would race that reload and abort one of the two
                await accounts.sign_out_all(me.name)

            with ui.row():
                ui.button(_("Sign out"), on_click=lambda: ui.navigate.to("/logout")).props("outline").mark(
                    "sign-out")
                ui.button(_("Sign out on every device"), on_click=everywhere).props("outline color=negative").mark(
                    "sign-out-everywhere")
