"""People, personal tokens, invites and sessions in PostgreSQL, behind the core's `PeopleStore` port.

One row each (migration 0008.people). Taking an invite is one conditional UPDATE, so of two
processes that take the same link at once exactly one wins."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from gui.core.people import InviteRecord, PersonRecord, SessionRecord, TokenRecord
from gui.pgstore.pool import connected

_PERSON = "person_id, name, roles, password_hash, created_at, removed_at"
_TOKEN = "token_id, person_id, label, digest, created_at, revoked_at"
_INVITE = "digest, person_id, created_at, expires_at, used_at"
_SESSION = "digest, person_id, created_at, expires_at"


def _person(row: Any) -> PersonRecord:
    return PersonRecord(person_id=row[0], name=row[1], roles=frozenset(row[2]), password_hash=row[3],
                        created_at=row[4], removed_at=row[5])


def _token(row: Any) -> TokenRecord:
    return TokenRecord(token_id=row[0], person_id=row[1], label=row[2], digest=row[3], created_at=row[4],
                       revoked_at=row[5])


def _invite(row: Any) -> InviteRecord:
    return InviteRecord(digest=row[0], person_id=row[1], created_at=row[2], expires_at=row[3], used_at=row[4])


class PgPeopleStore:
    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool

    async def _one(self, sql: str, args: tuple[Any, ...]) -> Any:
        async with connected(self._pool) as conn:
            return await (await conn.execute(sql.encode(), args)).fetchone()

    async def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        async with connected(self._pool) as conn:
            return await (await conn.execute(sql.encode(), args)).fetchall()

    async def add_person(self, person: PersonRecord) -> bool:
        try:
            async with connected(self._pool) as conn:
                await conn.execute(
                    f"INSERT INTO people ({_PERSON}) VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                    (person.person_id, person.name, sorted(person.roles), person.password_hash, person.created_at,
                     person.removed_at))
        except psycopg.errors.UniqueViolation:
            return False
        return True

    async def update_person(self, person: PersonRecord) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(
                b"UPDATE people SET roles = %s, password_hash = %s, removed_at = %s WHERE person_id = %s",
                (sorted(person.roles), person.password_hash, person.removed_at, person.person_id))

    async def person(self, name: str) -> PersonRecord | None:
        row = await self._one(f"SELECT {_PERSON} FROM people WHERE name = %s AND removed_at IS NULL", (name,))
        return _person(row) if row else None

    async def person_by_id(self, person_id: str) -> PersonRecord | None:
        row = await self._one(f"SELECT {_PERSON} FROM people WHERE person_id = %s", (person_id,))
        return _person(row) if row else None

    async def people(self) -> list[PersonRecord]:
        return [_person(r) for r in await self._all(
            f"SELECT {_PERSON} FROM people WHERE removed_at IS NULL ORDER BY name")]

    async def add_token(self, token: TokenRecord) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(f"INSERT INTO person_tokens ({_TOKEN}) VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                               (token.token_id, token.person_id, token.label, token.digest, token.created_at,
                                token.revoked_at))

    async def token(self, digest: str) -> TokenRecord | None:
        row = await self._one(f"SELECT {_TOKEN} FROM person_tokens WHERE digest = %s", (digest,))
        return _token(row) if row else None

    async def tokens_of(self, person_id: str) -> list[TokenRecord]:
        return [_token(r) for r in await self._all(
            f"SELECT {_TOKEN} FROM person_tokens WHERE person_id = %s AND revoked_at IS NULL "
            "ORDER BY created_at, token_id", (person_id,))]

    async def revoke_token(self, person_id: str, token_id: str, at: int) -> bool:
        row = await self._one("UPDATE person_tokens SET revoked_at = %s WHERE person_id = %s AND token_id = %s "
                              "AND revoked_at IS NULL RETURNING token_id", (at, person_id, token_id))
        return row is not None

    async def add_invite(self, invite: InviteRecord) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(f"INSERT INTO invites ({_INVITE}) VALUES (%s, %s, %s, %s, %s)".encode(),
                               (invite.digest, invite.person_id, invite.created_at, invite.expires_at,
                                invite.used_at))

    async def invite(self, digest: str) -> InviteRecord | None:
        row = await self._one(f"SELECT {_INVITE} FROM invites WHERE digest = %s", (digest,))
        return _invite(row) if row else None

    async def take_invite(self, digest: str, at: int) -> InviteRecord | None:
        row = await self._one(f"UPDATE invites SET used_at = %s WHERE digest = %s AND used_at IS NULL "
                              f"AND expires_at > %s RETURNING {_INVITE}", (at, digest, at))
        return _invite(row) if row else None

    async def end_invites(self, person_id: str, at: int) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(b"UPDATE invites SET used_at = %s WHERE person_id = %s AND used_at IS NULL",
                               (at, person_id))

    async def add_session(self, session: SessionRecord) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(f"INSERT INTO sessions ({_SESSION}) VALUES (%s, %s, %s, %s)".encode(),
                               (session.digest, session.person_id, session.created_at, session.expires_at))

    async def session(self, digest: str) -> SessionRecord | None:
        row = await self._one(f"SELECT {_SESSION} FROM sessions WHERE digest = %s", (digest,))
        return SessionRecord(digest=row[0], person_id=row[1], created_at=row[2], expires_at=row[3]) if row else None

    async def end_session(self, digest: str) -> None:
        async with connected(self._pool) as conn:
            await conn.execute(b"DELETE FROM sessions WHERE digest = %s", (digest,))

    async def end_sessions(self, person_id: str) -> int:
        async with connected(self._pool) as conn:
            done = await conn.execute(b"DELETE FROM sessions WHERE person_id = %s", (person_id,))
            return done.rowcount
