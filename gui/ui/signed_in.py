"""Who is looking at a page: the person signed in on a team server (the gate put them on the page's
request, `gui.api.roles`), or the desktop's one person."""

from __future__ import annotations

from nicegui import context

from gui.api.roles import person_of
from gui.core.people import DESKTOP_PERSON, Person


def current_person() -> Person:
    """The person whose page this is; on the desktop (or a page with no request: a test's) "you"."""
    try:
        request = context.client.request
    except Exception:  # noqa: BLE001 - no client or request: the desktop's test pages
        return DESKTOP_PERSON
    found = person_of(request.scope) if request is not None else None
    return found if found is not None else DESKTOP_PERSON


def starter() -> str | None:
    """Whom a run started from this page is started by: the signed-in person; None on the desktop."""
    person = current_person()
    return None if person.name == DESKTOP_PERSON.name else person.name


def may(role: str) -> bool:
    """The person here holds `role` (on the desktop, always); else a notice saying which role the action
    needs, and False: a button that acts checks this first."""
    return current_person().has(role) or refused(role)


def refused(role: str) -> bool:
    """The notice that the action needs `role` (the person here does not hold it); False."""
    from nicegui import ui

    from gui.i18n import _

    ui.notify(_("You may not do this: it needs the {role} role (an admin gives roles on the People page).").format(
        role=role), type="negative", multi_line=True)
    return False


def reload_pages_of(name: str) -> None:
    """Reload every open page of `name` (their sessions ended, or their roles changed): the gate then
    sends a page whose session ended to the sign-in page, and draws the others with the roles as they are."""
    from nicegui import Client

    for client in list(Client.instances.values()):
        request = client.request
        person = person_of(request.scope) if request is not None else None
        if person is not None and person.name == name and client.has_socket_connection:
            client.run_javascript("window.location.reload()")
