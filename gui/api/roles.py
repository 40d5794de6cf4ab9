"""Who may use a route on a team server: each route of `gui.api.routes` names the role it needs, and
`needs(role)` checks it before the route reads its body or acts.

`OPEN`: anyone (health, the sign-in pages); `SIGNED_IN`: any signed-in person (reading); else one of the
core's roles (`gui.core.people`): admin (people, servers, settings), author (sequences), runner (start
and stop runs, schedules, programs' asks), approver (answer requests). On the desktop (no accounts) the
token gate, where there is one, is the whole gate: the one person may do everything.

The gate (`gui.api.people_gate`) puts the signed-in person on the request's scope (`PERSON_KEY`) and,
for a personal token, its label (`TOKEN_KEY`): `person_of` reads them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request
from starlette.types import Scope

from gui.core.errors import NotSignedIn
from gui.core.people import ADMIN, APPROVER, AUTHOR, DESKTOP_PERSON, RUNNER, NotAllowed, Person

OPEN = "open"
SIGNED_IN = "signed-in"
ROLES = (OPEN, SIGNED_IN, ADMIN, AUTHOR, RUNNER, APPROVER)
PERSON_KEY = "seqdesk.person"
TOKEN_KEY = "seqdesk.token"

_WHAT = {ADMIN: "manage people, servers and settings", AUTHOR: "change sequences", RUNNER: "start or stop runs",
         APPROVER: "answer requests"}


def person_of(scope: Scope) -> Person | None:
    """The signed-in person of a request on a team server; None when nobody is (or on the desktop)."""
    found = scope.get(PERSON_KEY)
    return found if isinstance(found, Person) else None


def asker_name(scope: Scope) -> str:
    """The name of who asks: the signed-in person on a team server, else the desktop's one person ("you")."""
    person = person_of(scope)
    return person.name if person is not None else DESKTOP_PERSON.name


def token_of(scope: Scope) -> str | None:
    """The label of the personal token the request came with, if it came with one."""
    found = scope.get(TOKEN_KEY)
    return found if isinstance(found, str) else None


def allowed(person: Person | None, role: str) -> None:
    """Nothing when `person` may do what needs `role`; NotSignedIn or NotAllowed (a sentence) else."""
    if role == OPEN:
        return
    if person is None:
        raise NotSignedIn("sign in first: this SeqDesk is a team's (send 'Authorization: Bearer <personal token>', "
                          "or sign in at /login)")
    if role == SIGNED_IN or role in person.roles:
        return
    raise NotAllowed(f"{person.name} may not {_WHAT.get(role, 'do this')}: that needs the {role} role "
                     "(an admin gives it on the People page)")


def needs(role: str) -> Callable[[Request], Awaitable[None]]:
    """The route dependency that checks `role` on a team server (a coroutine: no worker thread)."""

    async def check(request: Request) -> None:
        if getattr(request.app.state.seqdesk_api, "people", None) is None:
            return  # the desktop: one person, every role (`DESKTOP_PERSON`)
        allowed(person_of(request.scope), role)

    check.__name__ = f"needs_{role.replace('-', '_')}"
    return check


def acting_person(scope: Scope, team: bool) -> Person:
    """Who is acting: the signed-in person on a team server, the desktop's one person else."""
    person = person_of(scope) if team else DESKTOP_PERSON
    if person is None:
        raise NotSignedIn("sign in first")
    return person
