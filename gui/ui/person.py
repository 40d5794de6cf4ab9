"""Who is looking at a page: the person a team server's sign-in put on the page's request (the scope's
`seqdesk.person`, as the people gate sets it), or the desktop's one person, "you", when nobody signed in.
(The people branch reads the same key in `gui.ui.signed_in.current_person`: one of the two goes at the merge.)"""

from __future__ import annotations

from nicegui import context

from gui.core.people import DESKTOP_PERSON, Person

PERSON_KEY = "seqdesk.person"  # where a team server's sign-in puts the signed-in `Person`


def signed_in_person() -> str:
    """The signed-in person of this page ("you" on the desktop, or on a page without a request)."""
    try:
        request = context.client.request
    except Exception:  # noqa: BLE001 - no client or request (a test's page): the desktop
        return DESKTOP_PERSON.name
    found = request.scope.get(PERSON_KEY) if request is not None else None
    return found.name if isinstance(found, Person) else DESKTOP_PERSON.name


def starter() -> str | None:
    """Whom a run started from this page is started by: the signed-in person; None on the desktop."""
    name = signed_in_person()
    return None if name == DESKTOP_PERSON.name else name
