"""Opening the PostgreSQL store: the schema at open, a newer database refused, the secret key checked,
an unreachable database said in a sentence (exit 2 at start), and conditional answers across stores."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from contract_support import interaction
from cryptography.fernet import Fernet

from gui.core.asks import InteractionNotPendingError
from gui.pgstore import DatabaseNewerError, DatabaseUnreachable, SecretKeyError, open_pg_stores

pytestmark = pytest.mark.postgres
REPO = Path(__file__).resolve().parents[2]  # the repository
NOWHERE = "postgresql://nobody@/nothing?host=/nonexistent-seqdesk-socket"


async def test_an_unreachable_database_is_said_in_one_sentence():
    with pytest.raises(DatabaseUnreachable, match="cannot reach the database .*nonexistent-seqdesk-socket"):
        await open_pg_stores(NOWHERE)


def test_the_app_given_an_unreachable_database_exits_2_with_a_sentence_not_a_traceback(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "SEQDESK_DATA": str(tmp_path)}
    env.pop("SEQDESK_MEMORY", None)
    done = subprocess.run([sys.executable, "-m", "gui", "--browser", "--store", NOWHERE], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "cannot reach the database" in done.stderr and "Traceback" not in done.stderr


async def test_the_schema_is_made_at_the_first_open_and_a_newer_database_is_refused(postgres_url):
    stores = await open_pg_stores(postgres_url, secret_key="")
    await stores.close()
    again = await open_pg_stores(postgres_url, secret_key="")  # nothing left to apply
    await again.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO _yoyo_migration (migration_hash, migration_id, applied_at_utc) "
                     "VALUES ('from-a-newer-seqdesk', '9999.future', now())")
    with pytest.raises(DatabaseNewerError, match="newer SeqDesk"):
        await open_pg_stores(postgres_url, secret_key="")


async def test_secrets_are_kept_encrypted_and_a_wrong_key_refuses_to_start(postgres_url):
    key, other = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    stores = await open_pg_stores(postgres_url, secret_key=key)
    await asyncio.to_thread(stores.mcp_settings.secrets.set, "api/headers", '{"X-Api-Key": "s3cret"}')
    await stores.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        stored = conn.execute("SELECT token FROM secrets").fetchall()
    assert len(stored) == 1 and "s3cret" not in stored[0][0]
    with pytest.raises(SecretKeyError, match="not the key"):
        await open_pg_stores(postgres_url, secret_key=other)
    with pytest.raises(SecretKeyError, match="not set"):
        await open_pg_stores(postgres_url, secret_key="")
    with pytest.raises(SecretKeyError, match="not a key"):
        await open_pg_stores(postgres_url, secret_key="short")
    reopened = await open_pg_stores(postgres_url, secret_key=key)
    assert reopened.mcp_settings.secrets.get("api/headers") == '{"X-Api-Key": "s3cret"}'
    await reopened.close()


async def test_two_processes_answering_one_request_have_exactly_one_winner(postgres_url):
    first, second = (await open_pg_stores(postgres_url, secret_key=""),
                     await open_pg_stores(postgres_url, secret_key=""))
    try:
        for n in range(20):
            await first.interactions.save(interaction(f"r{n}"))
            answers = [first.interactions.save(interaction(f"r{n}", status="resolved")),
                       second.interactions.save(interaction(f"r{n}", status="cancelled"))]
            results = await asyncio.gather(*answers, return_exceptions=True)
            assert sum(r is None for r in results) == 1, results
            assert all(isinstance(r, InteractionNotPendingError) for r in results if r is not None)
            kept = await second.interactions.get(f"r{n}")
            assert kept is not None and kept.status == ("resolved" if results[0] is None else "cancelled")
    finally:
        await first.close()
        await second.close()


async def test_an_ended_request_never_goes_back_to_pending(postgres_url):
    stores = await open_pg_stores(postgres_url, secret_key="")
    try:
        await stores.interactions.save(interaction("a", status="expired"))
        with pytest.raises(InteractionNotPendingError, match="already expired"):
            await stores.interactions.save(interaction("a"))
        await stores.interactions.save(interaction("a", status="expired"))  # the same again: no change
        assert (await stores.interactions.get("a")).status == "expired"
    finally:
        await stores.close()


async def test_a_batch_of_ends_never_replaces_what_another_process_ended_meanwhile(postgres_url):
    closing = await open_pg_stores(postgres_url, secret_key="")
    answering = await open_pg_stores(postgres_url, secret_key="")
    try:
        await closing.interactions.save_many([interaction("a"), interaction("b")])
        await answering.interactions.save(interaction("a", status="resolved"))
        with pytest.raises(InteractionNotPendingError, match="already ended"):
            await closing.interactions.save_many([interaction("a", status="cancelled"),
                                                  interaction("b", status="cancelled")])
        assert [(await closing.interactions.get(i)).status for i in "ab"] == ["resolved", "pending"]  # none of it
    finally:
        await closing.close()
        await answering.close()


async def test_a_record_jsonb_cannot_hold_comes_back_whole(postgres_url):
    from contract_support import run

    stores = await open_pg_stores(postgres_url, secret_key="")
    try:
        odd = run("odd", error="a NUL \x00 and a lone surrogate \udc80")
        await stores.runs.save(odd)
        assert await stores.runs.get("odd") == odd
        assert [r.run_id for r in (await stores.runs.query(text="NIGHT")).items] == ["odd"]
    finally:
        await stores.close()


async def test_a_database_lost_during_work_is_a_503_sentence_and_the_store_recovers(postgres_server,
                                                                                    seqdesk_database_url):
    from contract_support import run

    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        with psycopg.connect(postgres_server.url("postgres"), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                          (stores.name,))
        with pytest.raises(DatabaseUnreachable, match="cannot be reached now .*nothing was changed") as lost:
            for n in range(3):  # the pool's every connection was cut: the first use of one says so
                await stores.runs.save(run(f"lost-{n}"))
        assert lost.value.status == 503
        await stores.runs.save(run("after"))  # a new connection: the store works again
        assert (await stores.runs.get("after")) is not None
    finally:
        await stores.close()


async def test_the_kept_totals_match_the_rows_after_saves_batches_and_changes(seqdesk_database_url):
    from contract_support import run

    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        await stores.runs.save_many([run(f"b{n}", sequence=f"s{n % 3}", status="running") for n in range(30)])
        await stores.runs.save_many([run(f"b{n}", sequence=f"s{n % 3}", status="failed") for n in range(0, 30, 2)])
        for n in range(5):
            await stores.runs.save(run(f"one{n}", sequence="s9"))
            await stores.runs.save(run(f"one{n}", sequence="s8", status="stopped"))
        await stores.interactions.save_many([interaction(f"i{n}", status="resolved") for n in range(9)])
        await stores.interactions.save(interaction("p"))
        await stores.interactions.save(interaction("p", status="expired"))
        with psycopg.connect(seqdesk_database_url, autocommit=True) as conn:
            for table in ("runs", "interactions"):
                real = dict(conn.execute(
                    f"SELECT 'status/' || status, count(*) FROM {table} GROUP BY status UNION ALL "
                    f"SELECT 'sequence/' || coalesce(sequence, ''), count(*) FROM {table} GROUP BY sequence UNION ALL "
                    f"SELECT '*/', count(*) FROM {table}").fetchall())
                kept = dict(conn.execute("SELECT field || '/' || value, n FROM tallies WHERE tbl = %s AND n <> 0",
                                         (table,)).fetchall())
                assert kept == real, table
    finally:
        await stores.close()
