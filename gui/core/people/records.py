"""What a team's store keeps about people: each person, their personal tokens, invites and sessions.

Secrets are never kept: a token, an invite code or a session id is kept as its SHA-256 (`digest`),
a password as the hasher's string (argon2). Times are ms since the epoch. A removed person's record
stays (with `removed_at`), so their tokens can be told apart from unknown ones; everything hangs on
the person's `person_id`, so a name given again later starts with nothing of the old one's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PersonRecord:
    person_id: str
    name: str
    roles: frozenset[str]
    created_at: int
    password_hash: str | None = None  # None: signs in only through an invite link or OpenID Connect
    removed_at: int | None = None


@dataclass(frozen=True)
class TokenRecord:
    """A personal token: its label (shown in lists and recorded with each answer), never its secret."""

    token_id: str
    person_id: str
    label: str
    digest: str
    created_at: int
    revoked_at: int | None = None


@dataclass(frozen=True)
class InviteRecord:
    digest: str
    person_id: str
    created_at: int
    expires_at: int
    used_at: int | None = None


@dataclass(frozen=True)
class SessionRecord:
    digest: str
    person_id: str
    created_at: int
    expires_at: int
