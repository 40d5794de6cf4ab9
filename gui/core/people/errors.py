"""What can go wrong with people, sign-in and tokens: each a sentence and its family's status."""

from __future__ import annotations

from gui.core.errors import Conflict, Gone, Invalid, NotFound, NotSignedIn, Refused, TooSoon


class WrongPassword(NotSignedIn):
    """The name and password do not match a person here (never says which of the two is wrong)."""

    code = "wrong-password"


class NotAllowed(Refused):
    """The signed-in person lacks the role this needs."""

    code = "not-allowed"


class PersonRemoved(Refused):
    """A token or a session of a person an admin removed."""

    code = "person-removed"


class InviteGone(Gone):
    """An invite link used already, or past its time."""

    code = "invite-gone"


class SlowDown(TooSoon):
    """Too many wrong passwords for this name or from this address: wait `retry_after` s."""

    code = "slow-down"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class NoSuchPerson(NotFound):
    code = "no-such-person"


class PersonExists(Conflict):
    code = "person-exists"


class BadPassword(Invalid):
    code = "bad-password"


class BadLabel(Invalid):
    code = "bad-label"


class LabelTaken(Conflict):
    code = "label-taken"


class LastAdmin(Conflict):
    """Removing the last admin, or their admin role, would leave nobody to manage people."""

    code = "last-admin"
