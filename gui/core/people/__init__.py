"""People: who a signed-in person is to the core (a name and roles) and where their roles are read.

On the desktop there is one person, "you", who may do everything (`LonePerson`). On a team server
people sign in (`gui.people`, outside the core) and the core knows each only by name and roles
(`Person`), read through a `Directory`. The bottom layer of the core: every other core package may
read it (asks checks who may answer), and it reads none of them.
"""

from gui.core.people.directory import Directory, LonePerson
from gui.core.people.person import (
    ADMIN,
    APPROVER,
    AUTHOR,
    BUILT_IN_ROLES,
    DESKTOP_PERSON,
    RUNNER,
    Person,
    PersonNameError,
    check_person_name,
    check_role_name,
)

__all__ = [
    "ADMIN",
    "APPROVER",
    "AUTHOR",
    "BUILT_IN_ROLES",
    "DESKTOP_PERSON",
    "RUNNER",
    "Directory",
    "LonePerson",
    "Person",
    "PersonNameError",
    "check_person_name",
    "check_role_name",
]
