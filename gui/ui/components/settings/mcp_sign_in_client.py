"""The sign-in client of a server at a web address: the Client ID (and Client secret) the person
made for SeqDesk in that service's own console, for a server whose sign-in page does not let
SeqDesk register itself (GitHub, Google, many company sign-ins).

The add form shows the two fields (`client_fields`); a server's row says which Client ID it signs
in with (`client_words`) and its "Change sign-in" dialog changes or clears them
(`edit_sign_in_client`). The secret is never shown again: the dialog only says whether one is kept.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.door import McpServerView
from gui.i18n import DATA, N_, _
from gui.mcp.config import check_client_text

CLIENT_HELP = N_("Only if the server's sign-in page does not let SeqDesk register itself (GitHub, Google and many "
                 "company sign-ins do not): make a client for SeqDesk in that service's settings and copy its "
                 "Client ID here, and its secret if it gave you one. Otherwise leave both empty.")
SECRET_KEPT = N_("The secret is kept apart from the settings and never shown again.")
HELP_CLASSES = "text-xs text-gray-600 dark:text-gray-400"
# (name, Client ID text, Client secret text, forget the kept secret) -> what is wrong, or None
ClientChange = Callable[[str, str, str, bool], Awaitable[str | None]]


def close_or_say(dialog: ui.dialog, problem: ui.label, said: str | None) -> None:
    """After a dialog's Save: close it, or show what is wrong under its fields (`said`). A dialog the
    save already removed (the page redrew the list, and the dialog with it) is left alone."""
    if dialog.is_deleted:
        return
    if said:
        problem.text = said
        problem.set_visibility(True)
    else:
        dialog.close()

def client_fields() -> tuple[ui.input, ui.input]:
    """The Client ID and Client secret inputs of the add form, with what they are for."""
    client_id = ui.input(_("Client ID (optional)")).classes("w-full").mark("mcp-client-id")
    secret = ui.input(_("Client secret (optional)"), password=True).classes("w-full").mark("mcp-client-secret")
    secret.props("autocomplete=off")
    ui.label(_(CLIENT_HELP)).classes(f"{HELP_CLASSES} -mt-1")
    ui.label(_(SECRET_KEPT)).classes(f"{HELP_CLASSES} -mt-1")
    return client_id, secret


def client_values(client_id: str, secret: str) -> tuple[str | None, str | None] | str:
    """The Client ID and secret typed (None where left empty), or the words saying what is wrong."""
    cid = client_id.strip() or None
    try:
        value = check_client_text(secret, "oauth_client_secret") if secret.strip() else None
    except ValueError as exc:
        return str(exc)
    if value is not None and cid is None:
        return _("A Client secret needs the Client ID it belongs to.")
    return cid, value


def client_words(server: McpServerView) -> None:
    """What a server's row says about its sign-in client (nothing when it has none)."""
    if not server.oauth_client_id:
        return
    with ui.row(wrap=False).classes("items-center gap-1 min-w-0").mark(f"mcp-client-{server.name}"):
        ui.label(_("Signs in with the Client ID")).classes(f"{HELP_CLASSES} whitespace-nowrap")
        ui.label(server.oauth_client_id).classes(f"{HELP_CLASSES} font-mono break-all {DATA}")
        ui.label(_("and a Client secret") if server.oauth_client_secret_set else _("and no Client secret")).classes(
            f"{HELP_CLASSES} whitespace-nowrap")


def edit_sign_in_client(server: McpServerView, on_change: ClientChange, on_open: Callable[[bool], None]) -> None:
    """The "Change sign-in" dialog of one server."""
    has_secret = server.oauth_client_secret_set
    with ui.dialog().on_value_change(lambda e: on_open(bool(e.value))) as dialog, \
            ui.card().classes("gap-3 w-[32rem] max-w-full"):
        ui.label(_("Sign-in client of {name}").format(name=server.name)).classes("text-lg font-semibold")
        ui.label(_(CLIENT_HELP)).classes("text-sm text-gray-600 dark:text-gray-400")
        client_id = ui.input(_("Client ID"), value=server.oauth_client_id or "").classes("w-full").mark(
            "mcp-edit-client-id")
        secret = ui.input(_("New Client secret") if has_secret else _("Client secret (optional)"),
                          password=True).classes("w-full").mark("mcp-edit-client-secret")
        secret.props("autocomplete=off")
        forget = None
        if has_secret:
            ui.label(_("A Client secret is kept. Leave the field empty to keep it.")).classes(HELP_CLASSES)
            forget = ui.checkbox(_("Forget the Client secret")).mark("mcp-forget-client-secret")
        ui.label(_("Changing these signs you out of this server: sign in again afterwards.")).classes(HELP_CLASSES)
        problem = ui.label().classes("text-red-700 dark:text-red-400 break-words").mark("mcp-edit-client-problem")
        problem.set_visibility(False)
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button(_("Cancel"), on_click=dialog.close).props("flat no-caps")

            async def save() -> None:
                said = await on_change(server.name, client_id.value or "", secret.value or "",
                                       bool(forget.value) if forget is not None else False)
                close_or_say(dialog, problem, said)

            ui.button(_("Save"), icon="save", on_click=save).props("no-caps").mark("mcp-save-client")
    dialog.open()
