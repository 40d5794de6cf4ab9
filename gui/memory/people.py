"""People, personal tokens, invites and sessions in memory, behind the core's `PeopleStore` port (tests)."""

from __future__ import annotations

from dataclasses import replace

from gui.core.people import InviteRecord, PersonRecord, SessionRecord, TokenRecord


class MemoryPeopleStore:
    def __init__(self) -> None:
        self._people: dict[str, PersonRecord] = {}  # by person_id
        self._tokens: dict[str, TokenRecord] = {}  # by digest
        self._invites: dict[str, InviteRecord] = {}
        self._sessions: dict[str, SessionRecord] = {}

    async def add_person(self, person: PersonRecord) -> bool:
        if await self.person(person.name) is not None:
            return False
        self._people[person.person_id] = person
        return True

    async def update_person(self, person: PersonRecord) -> None:
        self._people[person.person_id] = person

    async def person(self, name: str) -> PersonRecord | None:
        return next((p for p in self._people.values() if p.name == name and p.removed_at is None), None)

    async def person_by_id(self, person_id: str) -> PersonRecord | None:
        return self._people.get(person_id)

    async def people(self) -> list[PersonRecord]:
        return sorted((p for p in self._people.values() if p.removed_at is None), key=lambda p: p.name)

    async def add_token(self, token: TokenRecord) -> None:
        self._tokens[token.digest] = token

    async def token(self, digest: str) -> TokenRecord | None:
        return self._tokens.get(digest)

    async def tokens_of(self, person_id: str) -> list[TokenRecord]:
        return sorted((t for t in self._tokens.values() if t.person_id == person_id and t.revoked_at is None),
                      key=lambda t: (t.created_at, t.token_id))

    async def revoke_token(self, person_id: str, token_id: str, at: int) -> bool:
        for token in self._tokens.values():
            if token.person_id == person_id and token.token_id == token_id and token.revoked_at is None:
                self._tokens[token.digest] = replace(token, revoked_at=at)
                return True
        return False

    async def add_invite(self, invite: InviteRecord) -> None:
        self._invites[invite.digest] = invite

    async def invite(self, digest: str) -> InviteRecord | None:
        return self._invites.get(digest)

    async def take_invite(self, digest: str, at: int) -> InviteRecord | None:
        invite = self._invites.get(digest)
        if invite is None or invite.used_at is not None or invite.expires_at <= at:
            return None
        self._invites[digest] = replace(invite, used_at=at)
        return invite

    async def end_invites(self, person_id: str, at: int) -> None:
        for key, invite in list(self._invites.items()):
            if invite.person_id == person_id and invite.used_at is None:
                self._invites[key] = replace(invite, used_at=at)

    async def add_session(self, session: SessionRecord) -> None:
        self._sessions[session.digest] = session

    async def session(self, digest: str) -> SessionRecord | None:
        return self._sessions.get(digest)

    async def end_session(self, digest: str) -> None:
        self._sessions.pop(digest, None)

    async def end_sessions(self, person_id: str) -> int:
        ended = [k for k, s in self._sessions.items() if s.person_id == person_id]
        for key in ended:
            del self._sessions[key]
        return len(ended)
