"""Where the core reads people's roles: the `Directory` port, and the desktop's one-person directory.

A team server's directory keeps people in its store (`gui.people`, on PostgreSQL or in memory); the
core asks it only whether a name is a person and which roles they hold, and who holds a role (to
ask every approver of `role:oncall`). It is asked at the moment it matters (answering, reminding),
so a role taken away counts at once.
"""

from __future__ import annotations

from typing import Protocol

from gui.core.people.person import DESKTOP_PERSON


class Directory(Protocol):
    """Who is a person here and what roles they hold."""

    async def exists(self, name: str) -> bool:
        """`name` is a person here now (one removed is not)."""
        ...

    async def roles_of(self, name: str) -> frozenset[str]:
        """The roles `name` holds now; empty for a name that is not a person."""
        ...

    async def members(self, role: str) -> frozenset[str]:
        """The names of the people who hold `role` now."""
        ...


class LonePerson:
    """The desktop's directory: one person, "you", with every built-in role."""

    async def exists(self, name: str) -> bool:
        return name == DESKTOP_PERSON.name

    async def roles_of(self, name: str) -> frozenset[str]:
        return DESKTOP_PERSON.roles if name == DESKTOP_PERSON.name else frozenset()

    async def members(self, role: str) -> frozenset[str]:
        return frozenset({DESKTOP_PERSON.name}) if role in DESKTOP_PERSON.roles else frozenset()
