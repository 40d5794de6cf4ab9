"""The accounts of a team server: people and their roles, passwords, invites, sessions and personal tokens.

One service over a `PeopleStore` and a `PasswordHasher`, used by every surface (the sign-in pages, the
People page, the HTTP API and `seqdesk people`). It is also the team's `Directory`: who is a person
here and which roles they hold, read from the store each time, so a role taken away counts at once.

- **Invites**: a person added without a password gets a one-time code (the link's last part), valid
  for `INVITE_DAYS`; taking it sets their password and signs them in. A used or expired code is
  `InviteGone` (410), and changes nothing.
- **Sessions**: a random id in an HttpOnly cookie, kept as its digest, for `SESSION_DAYS`; signing
  out ends this one, or every session of the person.
- **Personal tokens**: named, shown once, kept as their digest, revocable; a token of a removed
  person is `PersonRemoved` (403), never taken for a stranger's.
- **Wrong passwords** are slowed per name and per address (`SignInThrottle`).
"""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import replace

from gui.core.people.errors import (
    BadLabel,
    BadPassword,
    InviteGone,
    LabelTaken,
    LastAdmin,
    NoSuchPerson,
    PersonExists,
    PersonRemoved,
    SlowDown,
    WrongPassword,
)
from gui.core.people.person import ADMIN, Person, check_person_name, check_role_name
from gui.core.people.ports import PasswordHasher, PeopleStore, Throttle
from gui.core.people.records import InviteRecord, PersonRecord, SessionRecord, TokenRecord
from gui.core.people.throttle import SignInThrottle

INVITE_DAYS = 7
SESSION_DAYS = 14
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
TOKEN_PREFIX = "sdp_"
_DAY_MS = 86_400_000
_DUMMY_HASH_PASSWORD = "a password nobody has"  # checked for unknown names: the same time as a real check


def digest(secret: str) -> str:
    """What is kept of a token, invite code or session id: its SHA-256 (they are long random strings)."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def _now_ms() -> int:
    return int(time.time() * 1000)


def check_password(password: str) -> str:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise BadPassword(f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise BadPassword(f"a password has at most {MAX_PASSWORD} characters")
    return password


def check_label(label: str) -> str:
    label = label.strip() if isinstance(label, str) else ""
    if not label or len(label) > 64 or any(ord(c) < 32 for c in label):
        raise BadLabel("a token's name needs 1 to 64 characters on one line (for example: laptop CLI)")
    return label


def check_roles(roles: Iterable[str]) -> frozenset[str]:
    return frozenset(check_role_name(role) for role in roles)


class Accounts:
    """People, sign-in and tokens on one store; also the team's `Directory`."""

    def __init__(self, store: PeopleStore, hasher: PasswordHasher, *, throttle: Throttle | None = None,
                 clock: Callable[[], int] = _now_ms) -> None:
        self.store = store
        self.hasher = hasher
        self.throttle: Throttle = throttle or SignInThrottle()
        self.clock = clock
        self._dummy_hash: str | None = None
        # told the name of a person whose sessions ended or whose roles changed (the app reloads their
        # open pages, which then sign in again or show the new roles)
        self.on_changed: list[Callable[[str], None]] = []

    def _changed(self, name: str) -> None:
        for listener in list(self.on_changed):
            listener(name)

    # -- the Directory --------------------------------------------------------------------------
    async def exists(self, name: str) -> bool:
        return await self.store.person(name) is not None

    async def roles_of(self, name: str) -> frozenset[str]:
        found = await self.store.person(name)
        return found.roles if found is not None else frozenset()

    async def members(self, role: str) -> frozenset[str]:
        return frozenset(p.name for p in await self.store.people() if role in p.roles)

    # -- people ----------------------------------------------------------------------------------
    async def people(self) -> list[PersonRecord]:
        return await self.store.people()

    async def any_admin(self) -> bool:
        return any(ADMIN in p.roles for p in await self.store.people())

    async def add(self, name: str, roles: Iterable[str], password: str | None = None) -> str | None:
        """Add a person with `roles`; with a password they can sign in at once, without one the
        one-time invite code is returned (the link's last part). PersonExists when the name is taken."""
        check_person_name(name)
        chosen = check_roles(roles)
        hashed = self.hasher.hash(check_password(password)) if password is not None else None
        record = PersonRecord(person_id=uuid.uuid4().hex, name=name, roles=chosen, created_at=self.clock(),
                              password_hash=hashed)
        if not await self.store.add_person(record):
            raise PersonExists(f"{name} is a person here already: change their roles, or choose another name")
        return None if hashed is not None else await self._invite(record)

    async def invite_again(self, name: str) -> str:
        """A new invite code for `name` (earlier ones are used up)."""
        person = await self._person(name)
        await self.store.end_invites(person.person_id, self.clock())
        return await self._invite(person)

    async def _invite(self, person: PersonRecord) -> str:
        code = secrets.token_urlsafe(24)
        now = self.clock()
        await self.store.add_invite(InviteRecord(digest=digest(code), person_id=person.person_id, created_at=now,
                                                 expires_at=now + INVITE_DAYS * _DAY_MS))
        return code

    async def set_roles(self, name: str, roles: Iterable[str]) -> PersonRecord:
        person = await self._person(name)
        changed = replace(person, roles=check_roles(roles))
        if ADMIN not in changed.roles:
            await self._not_last_admin(person, "take the admin role from")
        await self.store.update_person(changed)
        self._changed(name)
        return changed

    async def set_password(self, name: str, password: str) -> None:
        person = await self._person(name)
        await self.store.update_person(replace(person, password_hash=self.hasher.hash(check_password(password))))

    async def remove(self, name: str) -> None:
        """Remove `name`: their sessions end, their invites are used up, their tokens refused (403)."""
        person = await self._person(name)
        await self._not_last_admin(person, "remove")
        now = self.clock()
        await self.store.update_person(replace(person, removed_at=now))
        await self.store.end_sessions(person.person_id)
        await self.store.end_invites(person.person_id, now)
        self._changed(name)

    async def _not_last_admin(self, person: PersonRecord, doing: str) -> None:
        """LastAdmin when `person` is the only admin: nobody could manage people any more."""
        if ADMIN in person.roles and not any(ADMIN in p.roles and p.person_id != person.person_id
                                             for p in await self.store.people()):
            raise LastAdmin(f"{person.name} is the last admin: give another person the admin role before you "
                            f"{doing} them")

    async def _person(self, name: str) -> PersonRecord:
        found = await self.store.person(name)
        if found is None:
            raise NoSuchPerson(f"there is no person {name!r} here (seqdesk people list shows who is)")
        return found

    # -- signing in ------------------------------------------------------------------------------
    async def sign_in(self, name: str, password: str, address: str) -> str:
        """A new session's id for `name` with the right password. WrongPassword, or SlowDown after
        too many wrong ones for this name or from this address (the password is then not checked)."""
        keys = (f"name:{name.strip().lower()[:64]}", f"address:{address}")
        left = await self.throttle.wait(*keys)
        if left:
            raise SlowDown(f"too many wrong passwords for this name or from this address: wait {max(1, round(left))} s "
                           "and try again", left)
        person = await self.store.person(name.strip().lower()) if name else None
        hashed = person.password_hash if person is not None else None
        if hashed is None:
            self.hasher.verify(self._dummy(), password[:MAX_PASSWORD])  # as long as a real check: no name oracle
            right = False
        else:
            right = self.hasher.verify(hashed, password[:MAX_PASSWORD])
        if not right or person is None:
            await self.throttle.wrong(*keys)
            raise WrongPassword("that name and password do not match a person here")
        return await self.open_session(person)

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self.hasher.hash(_DUMMY_HASH_PASSWORD)
        return self._dummy_hash

    async def open_session(self, person: PersonRecord) -> str:
        """A new session for `person` (signed in by password, invite or OpenID Connect): its id."""
        session_id = secrets.token_urlsafe(32)
        now = self.clock()
        await self.store.add_session(SessionRecord(digest=digest(session_id), person_id=person.person_id,
                                                   created_at=now, expires_at=now + SESSION_DAYS * _DAY_MS))
        return session_id

    async def sign_in_as(self, name: str) -> str:
        """A session for `name`, whose identity something else proved (OpenID Connect). NoSuchPerson."""
        return await self.open_session(await self._person(name))

    async def invited(self, code: str) -> PersonRecord:
        """The person an unused, unexpired invite code is for; InviteGone otherwise."""
        invite = await self.store.invite(digest(code))
        self._check_invite(invite)
        assert invite is not None
        person = await self.store.person_by_id(invite.person_id)
        if person is None or person.removed_at is not None:
            raise InviteGone("this invite link is no longer valid: the person it was for was removed")
        return person

    def _check_invite(self, invite: InviteRecord | None) -> None:
        if invite is None:
            raise InviteGone("this invite link is not valid: ask an admin for a new one")
        if invite.used_at is not None:
            raise InviteGone("this invite link was used already: sign in, or ask an admin for a new one")
        if invite.expires_at <= self.clock():
            raise InviteGone(f"this invite link expired ({INVITE_DAYS} days after it was made): ask an admin for a "
                             "new one")

    async def accept_invite(self, code: str, password: str) -> tuple[PersonRecord, str]:
        """Take the invite (once), set the person's password, and sign them in: (person, session id)."""
        check_password(password)
        person = await self.invited(code)
        taken = await self.store.take_invite(digest(code), self.clock())
        if taken is None:  # another request took it first
            self._check_invite(await self.store.invite(digest(code)))
            raise InviteGone("this invite link was used already: sign in, or ask an admin for a new one")
        person = replace(person, password_hash=self.hasher.hash(password))
        await self.store.update_person(person)
        return person, await self.open_session(person)

    async def session_person(self, session_id: str) -> Person | None:
        """The person a session id belongs to, while it lasts; None for an unknown or ended one."""
        session = await self.store.session(digest(session_id))
        if session is None:
            return None
        if session.expires_at <= self.clock():
            await self.store.end_session(session.digest)
            return None
        person = await self.store.person_by_id(session.person_id)
        if person is None or person.removed_at is not None:
            return None
        return Person(person.name, person.roles)

    async def sign_out(self, session_id: str, *, everywhere: bool = False) -> int:
        """End this session, or with `everywhere` every session of its person; how many ended."""
        session = await self.store.session(digest(session_id))
        if session is None:
            return 0
        if everywhere:
            ended = await self.store.end_sessions(session.person_id)
            person = await self.store.person_by_id(session.person_id)
            if person is not None:
                self._changed(person.name)
            return ended
        await self.store.end_session(session.digest)
        return 1

    async def sign_out_all(self, name: str) -> int:
        """End every session of `name`; how many ended."""
        ended = await self.store.end_sessions((await self._person(name)).person_id)
        self._changed(name)
        return ended

    # -- personal tokens -------------------------------------------------------------------------
    async def make_token(self, name: str, label: str) -> str:
        """A new personal token for `name`, named `label`: the secret, to be shown once."""
        person = await self._person(name)
        label = check_label(label)
        if any(t.label == label for t in await self.store.tokens_of(person.person_id)):
            raise LabelTaken(f"{name} has a token named {label!r} already: choose another name, or revoke it")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        await self.store.add_token(TokenRecord(token_id=uuid.uuid4().hex[:12], person_id=person.person_id,
                                               label=label, digest=digest(secret), created_at=self.clock()))
        return secret

    async def tokens(self, name: str) -> list[TokenRecord]:
        return await self.store.tokens_of((await self._person(name)).person_id)

    async def revoke_token(self, name: str, token_id: str) -> None:
        person = await self._person(name)
        if not await self.store.revoke_token(person.person_id, token_id, self.clock()):
            raise NoSuchPerson(f"{name} has no token {token_id!r} (it may be revoked already)")

    async def token_person(self, secret: str) -> tuple[Person, str] | None:
        """(person, the token's label) for a personal token; None for one that is not one;
        PersonRemoved for a token of a removed person (said, so they know why)."""
        if not secret.startswith(TOKEN_PREFIX):
            return None
        token = await self.store.token(digest(secret))
        if token is None or token.revoked_at is not None:
            return None
        person = await self.store.person_by_id(token.person_id)
        if person is None or person.removed_at is not None:
            name = person.name if person is not None else "its person"
            raise PersonRemoved(f"this token belonged to {name}, who was removed from this SeqDesk: ask an admin")
        return Person(person.name, person.roles), token.label

