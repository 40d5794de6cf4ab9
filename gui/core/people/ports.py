"""The ports the accounts service (`Accounts`) needs: where people are kept, and how passwords are hashed."""

from __future__ import annotations

from typing import Protocol

from gui.core.people.records import InviteRecord, PersonRecord, SessionRecord, TokenRecord


class PeopleStore(Protocol):
    """People, personal tokens, invites and sessions (`gui.pgstore` for a team, `gui.memory` for tests)."""

    async def add_person(self, person: PersonRecord) -> bool:
        """Keep a new person; False when a person (not removed) has that name already."""
        ...

    async def update_person(self, person: PersonRecord) -> None:
        """Replace the record with this `person_id` (roles, password, removal)."""
        ...

    async def person(self, name: str) -> PersonRecord | None:
        """The person of that name now (not removed), else None."""
        ...

    async def person_by_id(self, person_id: str) -> PersonRecord | None:
        """The person with that id, removed or not."""
        ...

    async def people(self) -> list[PersonRecord]:
        """Everyone not removed, by name."""
        ...

    async def add_token(self, token: TokenRecord) -> None: ...

    async def token(self, digest: str) -> TokenRecord | None: ...

    async def tokens_of(self, person_id: str) -> list[TokenRecord]:
        """The person's tokens not revoked, oldest first."""
        ...

    async def revoke_token(self, person_id: str, token_id: str, at: int) -> bool:
        """Revoke one of the person's tokens; False when they have no such token not revoked."""
        ...

    async def add_invite(self, invite: InviteRecord) -> None: ...

    async def invite(self, digest: str) -> InviteRecord | None: ...

    async def take_invite(self, digest: str, at: int) -> InviteRecord | None:
        """Mark the invite used, if it is unused and not expired at `at`, in one conditional write
        (two takers: one wins); the record as it was, else None."""
        ...

    async def end_invites(self, person_id: str, at: int) -> None:
        """Every unused invite of the person is used up now."""
        ...

    async def add_session(self, session: SessionRecord) -> None: ...

    async def session(self, digest: str) -> SessionRecord | None: ...

    async def end_session(self, digest: str) -> None: ...

    async def end_sessions(self, person_id: str) -> int:
        """End every session of the person; how many there were."""
        ...


class PasswordHasher(Protocol):
    """Hashes passwords slowly and checks them (`gui.people.Argon2Hasher`)."""

    def hash(self, password: str) -> str: ...

    def verify(self, hashed: str, password: str) -> bool: ...


class Throttle(Protocol):
    """Counts wrong passwords per key (a name, an address) and says how long a key must wait: in the
    process (`SignInThrottle`) or, on a team's database, across every process (`gui.pgstore`)."""

    async def wait(self, *keys: str) -> float:
        """Seconds to wait before any of `keys` may try again; 0: now."""
        ...

    async def wrong(self, *keys: str) -> None:
        """One more wrong password for each of `keys`."""
        ...
