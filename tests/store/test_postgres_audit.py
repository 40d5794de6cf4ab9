"""The record of decisions on a team's database: appends from several processes make one chain that
never forks; the database refuses to change or remove an entry; the head kept beside the entries shows
the newest entries cut off (what the chain alone cannot); `seqdesk audit verify|export --store` read it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from support.engine import next_pending_request
from support.waiting import within

from gui.core.asks import Answerer, AuditDraft, verify
from gui.pgstore import open_pg_stores
from gui.runtime import open_database_runtime

pytestmark = pytest.mark.postgres
REPO = Path(__file__).resolve().parents[2]
T = 30.0


def draft(n: int, iid: str | None = None) -> AuditDraft:
    return AuditDraft(at=n, interaction_id=iid or f"i{n}", run_id="r", kind="approval", decision="approved",
                      by="person", person="you", via="app", shown=f"$ echo {n}")


def by_hand(url: str, *statements: str) -> None:
    """Change the entries as someone who owns the database would: the append-only triggers off meanwhile."""
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
        for statement in statements:
            conn.execute(statement.encode())
        conn.execute("ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")


def seqdesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SEQDESK_MEMORY", None)
    return subprocess.run([sys.executable, "-m", "gui", *args], env=env, capture_output=True, text=True, timeout=120)


async def test_appends_from_three_processes_make_one_chain(seqdesk_database_url):
    stores = [await open_pg_stores(seqdesk_database_url, secret_key="") for _ in range(3)]
    try:
        async def appends(which: int) -> None:
            for n in range(40):
                if n % 10 == 9:
                    await stores[which].audit.append_many([draft(n, f"{which}-{n}-{k}") for k in range(5)])
                else:
                    await stores[which].audit.append(draft(n, f"{which}-{n}"))

        await asyncio.gather(*(appends(which) for which in range(3)))
        documents = await stores[0].audit.documents()
        head = await stores[1].audit.head()
        assert len(documents) == 3 * (36 + 4 * 5)
        assert verify(documents, head).ok, verify(documents, head).sentence()
        assert head is not None and head.position == len(documents) and head.hash == documents[-1]["hash"]
        assert len({d["interaction_id"] for d in documents}) == len(documents)  # none lost, none twice
    finally:
        for store in stores:
            await store.close()


async def test_the_database_refuses_to_change_or_remove_an_entry(seqdesk_database_url):
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        await stores.audit.append_many([draft(n) for n in range(3)])
    finally:
        await stores.close()
    with psycopg.connect(seqdesk_database_url, autocommit=True) as conn:
        for statement in ("DELETE FROM audit_log WHERE position = 3", "UPDATE audit_log SET at = 7",
                          "TRUNCATE audit_log"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(statement.encode())
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone() == (3,)


async def test_the_head_shows_the_newest_entries_cut_off_and_verify_names_an_edited_one(seqdesk_database_url):
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        await stores.audit.append_many([draft(n) for n in range(5)])
        by_hand(seqdesk_database_url, "DELETE FROM audit_log WHERE position > 3")
        documents, head = await stores.audit.documents(), await stores.audit.head()
        assert verify(documents).ok  # the chain alone cannot see it
        verdict = verify(documents, head)
        assert (verdict.ok, verdict.broken_at) == (False, 4)
        assert "the newest entries were removed" in (verdict.problem or "")
        assert "entry 5" in (verdict.problem or "") and "entry 3" in (verdict.problem or "")

        by_hand(seqdesk_database_url, "UPDATE audit_log SET entry = replace(entry, 'echo 1', 'echo 9') "
                                      "WHERE position = 2")
        verdict = verify(await stores.audit.documents(), head)
        assert (verdict.broken_at, verdict.broken_id) == (2, documents[1]["entry_id"])
    finally:
        await stores.close()


async def test_two_processes_answering_one_request_at_once_leave_one_decision_on_record(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url)
    second = await open_database_runtime(seqdesk_database_url)
    tree = {"name": "asks", "description": "", "groups": [{
        "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
        "timeout": None, "on_error": "abort", "tools": '{"tool": "cmd_run", "args": {"command": "echo hi"}} ;'}]}
    try:
        await first.engine.create(tree)
        asked_ids = []
        for _ in range(10):
            asked = next_pending_request(first.engine)
            started = await first.engine.start("asks", {})
            iid = await within(asked, "the run's approval request")
            asked_ids.append(iid)
            results = await asyncio.gather(
                first.engine.respond(iid, {"kind": "approval", "decision": "approved"}),
                second.engine.respond(iid, {"kind": "approval", "decision": "denied"}), return_exceptions=True)
            assert sum(not isinstance(r, BaseException) for r in results) == 1, results
            await first.engine.runner.wait(started.run_id, T)
        found, verdict = await second.engine.decisions()
        assert verdict.ok
        assert [e.interaction_id for e in found] == asked_ids  # one decision each: the one that took effect
        for entry in found:
            stored = await first.engine.interactions.get(entry.interaction_id)
            assert stored is not None and stored.result.response.decision == entry.decision
    finally:
        await first.close()
        await second.close()


async def test_decisions_of_two_processes_are_recorded_and_read_by_the_command(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url)
    second = await open_database_runtime(seqdesk_database_url)
    tree = {"name": "asks", "description": "", "groups": [{
        "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
        "timeout": None, "on_error": "abort", "tools": '{"tool": "cmd_run", "args": {"command": "echo hi"}} ;'}]}
    try:
        await first.engine.create(tree)
        for answering in (first, second, second):
            asked = next_pending_request(first.engine)
            started = await first.engine.start("asks", {})
            iid = await within(asked, "the run's approval request")
            await answering.engine.respond(iid, {"kind": "approval", "decision": "approved"},
                                           Answerer(via="cli"))
            await first.engine.runner.wait(started.run_id, T)
        found, verdict = await second.engine.decisions()
        assert verdict.ok and [(e.decision, e.via) for e in found] == [("approved", "cli")] * 3
    finally:
        await first.close()
        await second.close()

    ok = seqdesk("audit", "verify", "--store", seqdesk_database_url)
    assert (ok.returncode, ok.stdout.strip()) == (0, "ok: the chain of 3 decisions is unbroken"), ok.stderr
    exported = seqdesk("audit", "export", "--store", seqdesk_database_url)
    assert exported.returncode == 0 and [json.loads(line)["position"] for line in exported.stdout.splitlines()] == [
        1, 2, 3]
    by_hand(seqdesk_database_url, "DELETE FROM audit_log WHERE position = 3")
    cut = seqdesk("audit", "verify", "--store", seqdesk_database_url)
    assert cut.returncode == 1 and "the newest entries were removed" in cut.stderr, cut.stderr
    gone = seqdesk("audit", "verify", "--store", seqdesk_database_url.replace("host=", "host=/nowhere"))
    assert gone.returncode == 2 and "cannot reach the database" in gone.stderr and "Traceback" not in gone.stderr
