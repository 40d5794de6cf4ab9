"""People (`/people`, a team server's admins only): invite someone with a one-time link, give and
take roles, make a new link, remove a person. What it does is the accounts' (`gui.core.people.Accounts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import ui

from gui.core.errors import SeqDeskError
from gui.core.people import ADMIN, APPROVER, AUTHOR, BUILT_IN_ROLES, INVITE_DAYS, RUNNER, PersonRecord
from gui.i18n import N_, _
from gui.ui.signed_in import current_person
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext

ROLE_WORDS = {
    ADMIN: N_("admin: people, servers and settings"),
    AUTHOR: N_("author: write and change sequences"),
    RUNNER: N_("runner: start and stop runs"),
    APPROVER: N_("approver: answer requests"),
}
ORDER = (ADMIN, AUTHOR, RUNNER, APPROVER)


def _link(code: str) -> str:
    from nicegui import context

    base = str(context.client.request.base_url).rstrip("/") if context.client.request is not None else ""
    return f"{base}/invite/{code}"


def _others(text: str) -> list[str]:
    return [part.strip().lower() for part in text.replace(";", ",").split(",") if part.strip()]


class RolePicker:
    """Four checkboxes for the built-in roles and a field for a team's own (`oncall`)."""

    def __init__(self, chosen: frozenset[str] = frozenset(), key: str = "new") -> None:
        self.boxes = {}
        with ui.column().classes("gap-0"):
            for role in ORDER:
                self.boxes[role] = ui.checkbox(_(ROLE_WORDS[role]), value=role in chosen).mark(f"role-{key}-{role}")
        self.other = ui.input(_("Other roles, comma-separated (for example: oncall)"),
                              value=", ".join(sorted(chosen - BUILT_IN_ROLES))).classes("w-full").mark(
                                  f"role-{key}-other")

    @property
    def roles(self) -> list[str]:
        return [role for role, box in self.boxes.items() if box.value] + _others(self.other.value or "")


async def people_page(ctx: AppContext) -> None:
    accounts = ctx.accounts
    me = current_person()
    with frame("People", ctx):
        ui.label(_("People")).classes("text-2xl font-semibold")
        ui.label(_("Everyone who may sign in to this SeqDesk, and what each may do. Anyone signed in may look at "
                   "sequences, runs and requests; the roles say who may change them.")).classes("text-sm")
        with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("invite-card"):
            ui.label(_("Invite someone")).classes("text-lg font-semibold")
            name = ui.input(_("Their name (lower case, for example li.wei)")).classes("w-full max-w-sm").mark(
                "invite-name")
            picker = RolePicker()

            async def invite() -> None:
                result.clear()
                try:
                    code = await accounts.add((name.value or "").strip(), picker.roles)
                except SeqDeskError as exc:
                    with result:
                        ui.label(str(exc)).classes("text-negative").mark("invite-error")
                    return
                assert code is not None
                with result:
                    ui.label(_("Send this link to {name}. It works once, for {days} days; with it they choose "
                               "their password.").format(name=name.value, days=INVITE_DAYS)).classes("text-sm")
                    ui.input(value=_link(code)).props("readonly outlined dense").classes("w-full font-mono").mark(
                        "invite-link")
                name.value = ""
                for box in picker.boxes.values():
                    box.value = False
                picker.other.value = ""
                await listing.refresh()

            ui.button(_("Make invite link"), on_click=invite).mark("invite-button")
            result = ui.column().classes("w-full gap-1")

        @ui.refreshable
        async def listing() -> None:
            people = await accounts.people()
            with ui.card().classes("w-full gap-0 p-4").props("flat bordered").mark("people-list"):
                ui.label(_("People here")).classes("text-lg font-semibold mb-2")
                for person in people:
                    _person_row(ctx, person, me.name, listing)

        await listing()


def _person_row(ctx: AppContext, person: PersonRecord, me: str, listing: ui.refreshable) -> None:
    accounts = ctx.accounts
    with ui.row().classes("w-full items-center gap-3 py-2 border-b border-gray-100 dark:border-gray-800").mark(
            f"person-{person.name}"):
        ui.label(person.name).classes("font-medium w-40 break-all")
        roles = ", ".join(sorted(person.roles)) or _("no roles: may only look")
        ui.label(roles).classes("text-sm grow").mark(f"person-roles-{person.name}")
        if person.password_hash is None:
            ui.label(_("has not chosen a password yet")).classes("text-xs text-gray-500")

        async def change() -> None:
            with ui.dialog() as dialog, ui.card().classes("gap-2"):
                ui.label(_("Roles of {name}").format(name=person.name)).classes("text-lg font-semibold")
                picker = RolePicker(person.roles, key=person.name)
                problem = ui.label("").classes("text-negative")

                async def save() -> None:
                    try:
                        await accounts.set_roles(person.name, picker.roles)
                    except SeqDeskError as exc:
                        problem.text = str(exc)
                        return
                    dialog.close()
                    await listing.refresh()

                with ui.row():
                    ui.button(_("Save roles"), on_click=save).mark("save-roles")
                    ui.button(_("Cancel"), on_click=dialog.close).props("flat")
            dialog.open()

        async def new_link() -> None:
            code = await accounts.invite_again(person.name)
            with ui.dialog() as dialog, ui.card().classes("gap-2"):
                ui.label(_("A new invite link for {name}: it works once, for {days} days; earlier links no "
                           "longer work.").format(name=person.name, days=INVITE_DAYS)).classes("text-sm")
                ui.input(value=_link(code)).props("readonly outlined dense").classes("w-96 font-mono")
                ui.button(_("Close"), on_click=dialog.close).props("flat")
            dialog.open()

        async def remove() -> None:
            with ui.dialog() as dialog, ui.card().classes("gap-2"):
                ui.label(_("Remove {name}? They are signed out everywhere and their personal tokens stop working. "
                           "The runs they started and the requests they answered stay.").format(name=person.name))

                async def sure() -> None:
                    dialog.close()
                    try:
                        await accounts.remove(person.name)
                    except SeqDeskError as exc:  # the last admin: a sentence, nothing changed
                        ui.notify(str(exc), type="negative", multi_line=True)
                        return
                    await listing.refresh()

                with ui.row():
                    ui.button(_("Remove"), on_click=sure, color="negative").mark("remove-sure")
                    ui.button(_("Cancel"), on_click=dialog.close).props("flat")
            dialog.open()

        ui.button(_("Roles"), on_click=change).props("flat dense no-caps").mark(f"roles-{person.name}")
        ui.button(_("New invite link"), on_click=new_link).props("flat dense no-caps").mark(f"relink-{person.name}")
        if person.name != me:
            ui.button(_("Remove"), on_click=remove).props("flat dense no-caps color=negative").mark(
                f"remove-{person.name}")
