"""A team for tests: people and their roles in a dict, behind the core's `Directory` port (a team
server's own directory lives outside the core; the core's tests need only names and roles)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class Team:
    """`Directory` over a dict: name -> roles. `remove` takes a person away (their roles with them)."""

    def __init__(self, people: Mapping[str, Iterable[str]]) -> None:
        self.people = {name: frozenset(roles) for name, roles in people.items()}

    async def exists(self, name: str) -> bool:
        return name in self.people

    async def roles_of(self, name: str) -> frozenset[str]:
        return self.people.get(name, frozenset())

    async def members(self, role: str) -> frozenset[str]:
        return frozenset(name for name, roles in self.people.items() if role in roles)

    def remove(self, name: str) -> None:
        self.people.pop(name, None)


# Four people of a small team: two on call, a lead, and someone who holds no role that answers.
TEAM = {"ana": {"approver", "oncall"}, "li.wei": {"approver", "oncall"}, "sam": {"approver", "lead"},
        "runner": {"runner"}}
