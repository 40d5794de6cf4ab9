"""A person as the core knows them: a name and the roles they hold.

The four built-in roles say what a person may do on a team server: **admin** (people, servers,
settings), **author** (sequences), **runner** (start runs), **approver** (answer requests). A team
may name more (`oncall`), which grant nothing by themselves: a step's `approvers` can name them
(`role:oncall`). Names of people and roles are short, lower case and plain, so that `person:li.wei`
and `role:oncall` read the same everywhere they are written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gui.core.errors import Invalid

ADMIN = "admin"
AUTHOR = "author"
RUNNER = "runner"
APPROVER = "approver"
BUILT_IN_ROLES: frozenset[str] = frozenset({ADMIN, AUTHOR, RUNNER, APPROVER})

_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class PersonNameError(Invalid):
    """A person's or a role's name that cannot be one (the message says why)."""

    code = "invalid-name"


def _check(kind: str, name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        shown = repr(name)[:70]
        raise PersonNameError(f"{shown} cannot be a {kind}'s name: use 1 to 64 lower-case letters, digits, "
                              "'.', '_' or '-', starting with a letter or digit")
    return name


def check_person_name(name: str) -> str:
    """`name` when it can name a person (`li.wei`); PersonNameError saying why not."""
    return _check("person", name)


def check_role_name(name: str) -> str:
    """`name` when it can name a role (`oncall`); PersonNameError saying why not."""
    return _check("role", name)


@dataclass(frozen=True)
class Person:
    """A signed-in person: their name (`Answerer.person` records it) and their roles."""

    name: str
    roles: frozenset[str] = frozenset()

    def has(self, role: str) -> bool:
        return role in self.roles


DESKTOP_PERSON = Person("you", BUILT_IN_ROLES)  # the one person of a desktop app: no sign-in, every role
