"""A team server in process for tests: an in-memory engine and accounts behind the real API (people
gate, roles, sign-in pages), one person per role with a personal token, and a snapshot of everything a
request could change (to prove a refused one changed nothing).

Passwords are hashed with real argon2 at its cheapest settings (the tests make many)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from argon2 import PasswordHasher
from fastapi import FastAPI

from gui.core.door import Engine
from gui.core.people import Accounts, SignInThrottle
from gui.people import Argon2Hasher

PASSWORD = "a-long-enough-password"
IDENTITIES = ("anonymous", "nobody", "admin", "author", "runner", "approver")  # "nobody": signed in, no role


def cheap_hasher() -> Argon2Hasher:
    return Argon2Hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


@dataclass
class Team:
    engine: Engine
    accounts: Accounts
    app: FastAPI
    tokens: dict[str, str] = field(default_factory=dict)  # identity -> personal token

    def headers(self, who: str) -> dict[str, str]:
        return {} if who == "anonymous" else {"Authorization": f"Bearer {self.tokens[who]}"}

    async def snapshot(self) -> str:
        """Everything a route could change, as one text."""
        engine, accounts = self.engine, self.accounts
        sequences = [(s["name"], await engine.get_sequence_document(s["name"])) for s in await engine.list_sequences()]
        runs = [(r.run_id, r.status) for r in await engine.list_runs(limit=1000)]
        asked = (await engine.interaction_page(limit=1000)).items
        people = []
        for person in await accounts.people():
            tokens = [(t.label, t.revoked_at) for t in await accounts.tokens(person.name)]
            people.append((person.name, sorted(person.roles), person.password_hash, tokens))
        store = accounts.store
        sessions = len(getattr(store, "_sessions", {}))
        invites = sorted((i.digest, i.used_at) for i in getattr(store, "_invites", {}).values())
        return json.dumps({
            "sequences": sequences, "runs": runs,
            "interactions": [(i.interaction_id, i.status) for i in asked],
            "schedules": [s.model_dump(mode="json") for s in await engine.list_schedules()],
            "rules": [r.model_dump(mode="json") for r in await engine.approval_rules()],
            "servers": (await engine.list_mcp_servers()).model_dump(mode="json"),
            "people": people, "sessions": sessions, "invites": invites,
        }, sort_keys=True, default=str)


async def team_app(engine: Engine, *, throttle: SignInThrottle | None = None, oidc: Any = None) -> Team:
    """The API of a team server on `engine`, with one person per role (and "nobody", and "victim",
    an approver for the admins to change), each with a personal token named "test"."""
    from gui.api import register_api
    from gui.api.request_gate import Served
    from gui.context import EngineSlot
    from gui.memory import MemoryPeopleStore

    accounts = Accounts(MemoryPeopleStore(), cheap_hasher(), throttle=throttle)
    app = FastAPI()
    slot = EngineSlot(engine)
    register_api(app, engine=slot.for_api, token=None, served=Served.in_process(), people=lambda: accounts,
                 oidc=oidc)
    team = Team(engine, accounts, app)
    for who in IDENTITIES[1:]:
        await accounts.add(who, [] if who == "nobody" else [who], PASSWORD)
        team.tokens[who] = await accounts.make_token(who, "test")
    await accounts.add("victim", ["approver"], PASSWORD)
    return team


async def client_of(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        yield client
