"""The record of decisions on a team's PostgreSQL database: who answered (the signed-in person and
their token's label) in one append-only chain that two processes extend together; a change through
SQL is refused, and a hand edit made anyway is named by `seqdesk audit verify`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg
import pytest
from support.cli import seqdesk

from gui.core.asks import Answerer
from gui.core.door import ProgramAsk
from gui.runtime import open_runtime

pytestmark = pytest.mark.postgres


def ask(title: str) -> ProgramAsk:
    return ProgramAsk(kind="approval", title=title, command="true", asker="test")


async def test_two_processes_extend_one_chain_and_name_who_answered(seqdesk_database_url: str, data: Path):
    url = seqdesk_database_url
    first, second = await open_runtime(store=url), await open_runtime(store=url)
    try:
        asked = [await first.engine.ask(ask(f"a{n}")) for n in range(6)]
        await asyncio.gather(*(
            (first if n % 2 else second).engine.respond(
                state.ask_id, {"kind": "approval", "decision": "approved"},
                Answerer(person="li.wei", via="api", token="laptop CLI"))
            for n, state in enumerate(asked)))
        entries, verdict = await second.engine.decisions()
    finally:
        await first.close()
        await second.close()
    assert verdict.ok and verdict.count == 6
    assert {(e.person, e.via, e.token) for e in entries} == {("li.wei", "api", "laptop CLI")}
    assert [e.position for e in entries] == [1, 2, 3, 4, 5, 6]
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE audit_log SET entry = replace(entry, 'li.wei', 'mallory') WHERE position = 3")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM audit_log WHERE position = 6")
    verified = seqdesk("--store", url, "audit", "verify", data=data)
    assert verified.returncode == 0 and "chain of 6 decisions is unbroken" in verified.stdout, verified.stderr
    with psycopg.connect(url, autocommit=True) as conn:  # a superuser edits it anyway, the trigger off
        conn.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
        conn.execute("UPDATE audit_log SET entry = replace(entry, 'li.wei', 'mallory') WHERE position = 3")
    broken = seqdesk("--store", url, "audit", "verify", data=data)
    assert broken.returncode == 1 and "broken at entry 3" in broken.stderr
