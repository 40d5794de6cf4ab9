"""People: who a signed-in person is to the core (a name and roles), where their roles are read, and
the accounts of a team server.

On the desktop there is one person, "you", who may do everything (`LonePerson`). On a team server
people sign in and the core knows each by name and roles (`Person`), read through a `Directory`;
`Accounts` keeps them (passwords, invites, sessions, personal tokens) on a `PeopleStore`. The bottom
layer of the core: every other core package may read it (asks checks who may answer), and it reads
none of them.
"""

from gui.core.people.accounts import (
    INVITE_DAYS,
    MIN_PASSWORD,
    SESSION_DAYS,
    TOKEN_PREFIX,
    Accounts,
    check_label,
    check_password,
    check_roles,
    digest,
)
from gui.core.people.directory import Directory, LonePerson
from gui.core.people.errors import (
    BadLabel,
    BadPassword,
    InviteGone,
    LabelTaken,
    LastAdmin,
    NoSuchPerson,
    NotAllowed,
    PersonExists,
    PersonRemoved,
    SlowDown,
    WrongPassword,
)
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
from gui.core.people.ports import PasswordHasher, PeopleStore, Throttle
from gui.core.people.records import InviteRecord, PersonRecord, SessionRecord, TokenRecord
from gui.core.people.throttle import MAX_WRONG, WINDOW, SignInThrottle

__all__ = [
    "ADMIN",
    "APPROVER",
    "AUTHOR",
    "BUILT_IN_ROLES",
    "DESKTOP_PERSON",
    "INVITE_DAYS",
    "MAX_WRONG",
    "MIN_PASSWORD",
    "RUNNER",
    "SESSION_DAYS",
    "TOKEN_PREFIX",
    "WINDOW",
    "Accounts",
    "BadLabel",
    "BadPassword",
    "Directory",
    "InviteGone",
    "InviteRecord",
    "LabelTaken",
    "LastAdmin",
    "LonePerson",
    "NoSuchPerson",
    "NotAllowed",
    "PasswordHasher",
    "PeopleStore",
    "Throttle",
    "Person",
    "PersonExists",
    "PersonNameError",
    "PersonRecord",
    "PersonRemoved",
    "SessionRecord",
    "SignInThrottle",
    "SlowDown",
    "TokenRecord",
    "WrongPassword",
    "check_label",
    "check_password",
    "check_person_name",
    "check_role_name",
    "check_roles",
    "digest",
]
