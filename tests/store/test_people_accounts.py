"""The accounts of a team server on both people stores, the same cases: real PostgreSQL (migration
0008.people) and the in-memory store. Passwords hashed with real argon2 (at its cheapest)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from support.people import PASSWORD, cheap_hasher

from gui.core.people import (
    Accounts,
    BadLabel,
    BadPassword,
    InviteGone,
    LabelTaken,
    LastAdmin,
    NoSuchPerson,
    PersonExists,
    PersonNameError,
    PersonRemoved,
    SlowDown,
    WrongPassword,
)


@pytest.fixture(params=["memory", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def accounts(request: pytest.FixtureRequest) -> AsyncIterator[Accounts]:
    if request.param == "memory":
        from gui.memory import MemoryPeopleStore

        yield Accounts(MemoryPeopleStore(), cheap_hasher())
        return
    from gui.pgstore import open_people_store

    url = request.getfixturevalue("seqdesk_database_url")
    store, close = await open_people_store(url)
    try:
        yield Accounts(store, cheap_hasher())
    finally:
        await close()


async def test_people_roles_and_the_directory(accounts: Accounts):
    assert await accounts.add("li.wei", ["approver", "oncall"], PASSWORD) is None
    await accounts.add("ada", ["admin"], PASSWORD)
    with pytest.raises(PersonExists, match="li.wei is a person here already"):
        await accounts.add("li.wei", ["runner"], PASSWORD)
    with pytest.raises(PersonNameError):
        await accounts.add("Li Wei", ["runner"], PASSWORD)
    with pytest.raises(PersonNameError):
        await accounts.add("bo", ["On Call"], PASSWORD)
    with pytest.raises(BadPassword, match="at least 10"):
        await accounts.add("bo", ["runner"], "short")
    assert [p.name for p in await accounts.people()] == ["ada", "li.wei"]
    assert await accounts.exists("li.wei") and not await accounts.exists("bo")
    assert await accounts.roles_of("li.wei") == {"approver", "oncall"}
    assert await accounts.members("oncall") == {"li.wei"}
    await accounts.set_roles("li.wei", ["runner"])
    assert await accounts.roles_of("li.wei") == {"runner"} and await accounts.members("oncall") == frozenset()
    with pytest.raises(NoSuchPerson):
        await accounts.set_roles("nobody", ["runner"])
    with pytest.raises(LastAdmin, match="ada is the last admin"):  # nobody could manage people any more
        await accounts.set_roles("ada", ["runner"])
    with pytest.raises(LastAdmin):
        await accounts.remove("ada")
    await accounts.set_roles("li.wei", ["admin"])
    await accounts.remove("ada")
    assert await accounts.roles_of("li.wei") == {"admin"}


async def test_passwords_sessions_and_signing_out_everywhere(accounts: Accounts):
    await accounts.add("ada", ["admin"], PASSWORD)
    told: list[str] = []
    accounts.on_changed.append(told.append)
    with pytest.raises(WrongPassword, match="do not match"):
        await accounts.sign_in("ada", "wrong-password-here", "10.0.0.1")
    with pytest.raises(WrongPassword):
        await accounts.sign_in("nobody", PASSWORD, "10.0.0.1")
    first = await accounts.sign_in("ada", PASSWORD, "10.0.0.1")
    second = await accounts.sign_in("ada", PASSWORD, "10.0.0.2")
    person = await accounts.session_person(first)
    assert person is not None and person.name == "ada" and person.roles == {"admin"}
    assert await accounts.sign_out(first) == 1
    assert await accounts.session_person(first) is None and await accounts.session_person(second) is not None
    third = await accounts.sign_in("ada", PASSWORD, "10.0.0.1")
    assert await accounts.sign_out(third, everywhere=True) == 2
    assert await accounts.session_person(second) is None and await accounts.session_person(third) is None
    assert told == ["ada"]  # signing out everywhere is told (the app reloads their open pages); one device is not
    await accounts.set_roles("ada", ["admin", "runner"])
    assert told == ["ada", "ada"]


async def test_personal_tokens_are_named_revocable_and_die_with_their_person(accounts: Accounts):
    await accounts.add("li.wei", ["approver"], PASSWORD)
    secret = await accounts.make_token("li.wei", "laptop CLI")
    assert secret.startswith("sdp_") and len(secret) > 40
    found = await accounts.token_person(secret)
    assert found is not None and found[0].name == "li.wei" and found[1] == "laptop CLI"
    with pytest.raises(LabelTaken):
        await accounts.make_token("li.wei", "laptop CLI")
    with pytest.raises(BadLabel):
        await accounts.make_token("li.wei", " ")
    [token] = await accounts.tokens("li.wei")
    assert token.label == "laptop CLI" and secret not in repr(token)  # only its digest is kept
    await accounts.revoke_token("li.wei", token.token_id)
    assert await accounts.token_person(secret) is None and await accounts.tokens("li.wei") == []
    kept = await accounts.make_token("li.wei", "phone")
    session = await accounts.sign_in("li.wei", PASSWORD, "10.0.0.1")
    await accounts.remove("li.wei")
    with pytest.raises(PersonRemoved, match="belonged to li.wei, who was removed"):
        await accounts.token_person(kept)
    assert await accounts.session_person(session) is None
    await accounts.add("li.wei", ["runner"], PASSWORD)  # the name again: nothing of the old one's
    with pytest.raises(PersonRemoved):
        await accounts.token_person(kept)
    assert await accounts.tokens("li.wei") == []


async def test_an_invite_is_taken_once_even_by_two_at_a_time(accounts: Accounts):
    code = await accounts.add("bo", ["runner"])
    assert code is not None and (await accounts.invited(code)).name == "bo"
    with pytest.raises(WrongPassword):
        await accounts.sign_in("bo", PASSWORD, "10.0.0.1")  # no password yet
    results = await asyncio.gather(accounts.accept_invite(code, PASSWORD), accounts.accept_invite(code, PASSWORD),
                                   return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == ["InviteGone", "tuple"]
    with pytest.raises(InviteGone, match="used already"):
        await accounts.invited(code)
    assert await accounts.sign_in("bo", PASSWORD, "10.0.0.1")
    again = await accounts.invite_again("bo")
    newer = await accounts.invite_again("bo")
    with pytest.raises(InviteGone):
        await accounts.invited(again)  # a newer link ends the older
    await accounts.remove("bo")
    with pytest.raises(InviteGone):
        await accounts.invited(newer)


@pytest.mark.postgres
async def test_ten_wrong_passwords_across_two_processes_slow_that_name_and_address(
        seqdesk_database_url: str) -> None:
    """Two processes of a team (two Accounts, each on its own pool) share the count: five wrong passwords
    in each within the minute slow the name (from any address) and the address (for any name) in both;
    the wait ends by itself and the right password works again."""
    from gui.pgstore import PgSignInThrottle, open_people_store
    from gui.pgstore.pool import open_pool

    now = [5_000.0]
    opened = [await open_people_store(seqdesk_database_url) for _ in range(2)]
    pools = [await open_pool(seqdesk_database_url, f"throttle-{i}") for i in range(2)]
    try:
        one, two = (Accounts(store, cheap_hasher(), throttle=PgSignInThrottle(pool, clock=lambda: now[0]))
                    for (store, _close), pool in zip(opened, pools, strict=True))
        await one.add("ada", ["admin"], PASSWORD)
        for attempt in range(9):
            accounts = one if attempt % 2 else two
            with pytest.raises(WrongPassword):
                await accounts.sign_in("ada", "wrong-password-here", "10.0.0.1")
            now[0] += 1
        assert await one.sign_in("ada", PASSWORD, "10.0.0.9")  # nine: not yet slowed
        with pytest.raises(WrongPassword):
            await two.sign_in("ada", "wrong-password-here", "10.0.0.1")  # the tenth, in the other process
        for accounts, name, address in ((one, "ada", "10.0.0.9"), (two, "ada", "10.0.0.9"),
                                        (one, "bo", "10.0.0.1"), (two, "bo", "10.0.0.1")):
            with pytest.raises(SlowDown, match="wait 60 s"):
                await accounts.sign_in(name, PASSWORD, address)  # the right password is not even checked
        now[0] += 61  # the wait ends by itself: nobody is locked out for good
        assert await two.sign_in("ada", PASSWORD, "10.0.0.1")
    finally:
        for pool in pools:
            await pool.close()
        for _store, close in opened:
            await close()
