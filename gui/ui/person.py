"""Who is looking at a page: the person a team server's sign-in put on the page's request
(`request.state.person`), or the desktop's one person, "you", when nobody signed in."""

from __future__ import annotations

from nicegui import context

from gui.core.people import DESKTOP_PERSON


def signed_in_person() -> str:
    """The signed-in person of this page ("you" on the desktop)."""
    person = getattr(context.client.request.state, "person", None)
    return person if isinstance(person, str) and person else DESKTOP_PERSON.name



def starter() -> str | None:
    """Whom a run started from this page is started by: the signed-in person; None on the desktop."""
    name = signed_in_person()
    return None if name == DESKTOP_PERSON.name else name
