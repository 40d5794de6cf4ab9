"""The core's people seam: names, roles, and the desktop's one-person directory."""

from __future__ import annotations

import pytest

from gui.core.errors import Invalid
from gui.core.people import (
    ADMIN,
    APPROVER,
    BUILT_IN_ROLES,
    DESKTOP_PERSON,
    LonePerson,
    Person,
    PersonNameError,
    check_person_name,
    check_role_name,
)


def test_names_people_and_roles_can_have() -> None:
    assert check_person_name("li.wei") == "li.wei"
    assert check_role_name("oncall") == "oncall"
    for bad in ("", "Li", "-x", "a b", "x" * 65, "role:oncall"):
        with pytest.raises(PersonNameError, match="cannot be a"):
            check_person_name(bad)
    assert issubclass(PersonNameError, Invalid)


def test_a_person_holds_roles() -> None:
    person = Person("li.wei", frozenset({APPROVER, "oncall"}))
    assert person.has("oncall") and not person.has(ADMIN)


async def test_the_desktop_has_one_person_with_every_role() -> None:
    directory = LonePerson()
    assert await directory.exists("you") and not await directory.exists("li.wei")
    assert await directory.roles_of("you") == BUILT_IN_ROLES == DESKTOP_PERSON.roles
    assert await directory.roles_of("li.wei") == frozenset()
    assert await directory.members(APPROVER) == frozenset({"you"})
    assert await directory.members("oncall") == frozenset()
