"""`seqdesk data export/import`: a data folder's things moved into a PostgreSQL database and back, checked
document by document (history, the record of decisions, rules, schedules, MCP servers, notification
settings, preferences; a team's people between databases); the record's chain verifies where it
arrives (`seqdesk audit verify`); secrets (an MCP server's header values and Client secret among them)
travel sealed with SEQDESK_SECRET_KEY, never in clear; an import into a store that holds things refuses
unless told to merge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from contract_support import interaction, run, sequence
from cryptography.fernet import Fernet

from gui.core.asks import ApprovalRule, AuditDraft
from gui.core.people import PersonRecord, TokenRecord
from gui.core.runs import Schedule
from gui.mcp import McpServerConfig
from gui.mcp.oauth_client import client_secret, set_client_secret
from gui.moving import BadExport, BrokenRecord, CannotSeal, NotEmpty, documents, export, import_, opened
from gui.notify import NotifySettings

pytestmark = pytest.mark.postgres
REPO = Path(__file__).resolve().parents[2]  # the repository


WEBHOOK = "https://hooks.example/T0K3N-in-the-path"
SMTP_PASSWORD = "smtp-pass-w0rd"
HEADER = "k-header-s3cret"
CLIENT_SECRET = "cl1ent-s3cret-of-the-console"
SECRETS = (WEBHOOK, SMTP_PASSWORD, HEADER, CLIENT_SECRET)


@pytest.fixture(autouse=True)
def team_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("SEQDESK_SECRET_KEY", key)
    monkeypatch.setenv("SEQDESK_SECRETS", "file")  # a folder's MCP secrets in its private file, not a keyring
    return key


async def fill_settings(where: str) -> None:
    """What a person set up besides history: an MCP server with a secret header and a sign-in client
    made in its console (its Client secret), notifications with a webhook and an SMTP password, and
    preferences (dark mode, language)."""
    async with opened(where) as place:
        await place.mcp.save(McpServerConfig(name="docs", transport="http", url="https://docs.example/mcp",
                                             headers={"X-Api-Key": HEADER}, oauth_client_id="seqdesk-app"))
        set_client_secret(place.mcp.secrets, "docs", CLIENT_SECRET)
        place.notify.save(NotifySettings.model_validate({
            "webhook_url": WEBHOOK, "on_failures": False,
            "smtp": {"host": "smtp.example", "port": 465, "security": "ssl", "username": "ada",
                     "password": SMTP_PASSWORD, "from_addr": "seqdesk@example.org", "to_addr": "ada@example.org"}}))
        place.preferences("preferences").update(dark=True, lang="zh", desktop_notifications=False)


async def fill(where: str) -> None:
    async with opened(where) as place:
        stores = place.stores
        await stores.sequences.save(sequence("nightly", "builds every night"))
        await stores.runs.save_many([run(f"r{n}", created_at=1000.0 + n) for n in range(7)])
        await stores.runs.save(run("live", status="running", created_at=2000.0))
        await stores.interactions.save_many([interaction(f"i{n}", status="resolved", created_at=n) for n in range(5)])
        await stores.interactions.save(interaction("waiting", created_at=99))
        await stores.modes.set("http_get", "always-allow")
        await stores.modes.add_rule(ApprovalRule(rule_id="r1", tool="cmd_run", scope="prefix", prefix="git status"))
        await stores.schedules.save(Schedule(schedule_id="s1", sequence="nightly", every=900.0, created_at=1.0,
                                             next_at=901.0))


def decision(n: int) -> AuditDraft:
    return AuditDraft(at=1_000_000 + n, interaction_id=f"decided-{n}", run_id="run-1", sequence_name="nightly",
                      kind="approval", decision="approved" if n % 2 else "denied", by="person", person="you",
                      via="app", shown=f"$ rm -rf build/{n} — naïve ünïcode", detail=None if n % 2 else "not now")


async def decide(where: str, count: int, start: int = 0) -> None:
    """`count` decisions in the place's record (as the app appends them), on requests not stored."""
    async with opened(where) as place:
        for n in range(start, start + count):
            await place.audit.append(decision(n))  # type: ignore[attr-defined]


def audit_verify(*where: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SEQDESK_MEMORY", None)
    return subprocess.run([sys.executable, "-m", "gui", "audit", "verify", *where], env=env, capture_output=True,
                          text=True, timeout=120)


async def test_a_folder_moves_into_a_database_and_back_whole(tmp_path, seqdesk_database_url):
    folder = str(tmp_path / "data")
    await fill(folder)
    await fill_settings(folder)
    await decide(folder, 12)
    async with opened(folder) as place:
        original = await documents(place)
    assert original["mcp_server/docs"]["client_secret"] == CLIENT_SECRET
    moved_out = await export(folder, tmp_path / "out.jsonl")
    assert moved_out.counts == {"sequence": 1, "run": 8, "interaction": 6, "mode": 1, "rule": 1, "schedule": 1,
                                "mcp_server": 1, "notifications": 1, "preferences": 1, "audit": 12}
    into_database = await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    assert into_database.differences == [] and into_database.counts == moved_out.counts
    assert into_database.record is not None and into_database.record.ok and into_database.record.count == 12
    checked = audit_verify("--store", seqdesk_database_url)  # the database's chain and head, as the team checks it
    assert checked.returncode == 0 and "chain of 12 decisions is unbroken" in checked.stdout, checked.stderr
    with psycopg.connect(seqdesk_database_url, autocommit=True) as conn:  # tidied after the bulk of writes
        vacuumed = conn.execute("SELECT relname FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL "
                                "AND relname IN ('runs', 'interactions') ORDER BY relname").fetchall()
    assert vacuumed == [("interactions",), ("runs",)]
    async with opened(seqdesk_database_url) as place:
        in_database = await documents(place)
    assert in_database == original  # every document, secrets too, as the folder held it
    moved_back = await export(seqdesk_database_url, tmp_path / "back.jsonl")
    assert moved_back.counts == moved_out.counts
    back = await import_(tmp_path / "back.jsonl", str(tmp_path / "again"))
    assert back.differences == [] and back.record is not None and back.record.count == 12
    async with opened(str(tmp_path / "again")) as place:
        assert await documents(place) == original
        assert client_secret(place.mcp.secrets, "docs") == CLIENT_SECRET  # the sign-in client works as it did
    checked = audit_verify("--data", str(tmp_path / "again"))
    assert checked.returncode == 0 and "chain of 12 decisions is unbroken" in checked.stdout, checked.stderr
    await decide(str(tmp_path / "again"), 1, start=12)  # the app goes on chaining after the moved entries
    await decide(seqdesk_database_url, 1, start=12)
    for where in (("--data", str(tmp_path / "again")), ("--store", seqdesk_database_url)):
        assert "chain of 13 decisions is unbroken" in audit_verify(*where).stdout
    for file in ("out.jsonl", "back.jsonl"):
        text = (tmp_path / file).read_text()
        assert [secret for secret in SECRETS if secret in text] == []  # sealed, never in clear
        assert json.loads(text.splitlines()[0])["secrets"] == "sealed with SEQDESK_SECRET_KEY"


async def test_secrets_are_not_exported_without_a_key_unless_left_out(tmp_path, seqdesk_database_url, monkeypatch):
    folder = str(tmp_path / "data")
    await fill_settings(folder)
    monkeypatch.delenv("SEQDESK_SECRET_KEY")
    with pytest.raises(CannotSeal, match="never writes in clear: set SEQDESK_SECRET_KEY"):
        await export(folder, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
    moved = await export(folder, tmp_path / "out.jsonl", with_secrets=False)
    text = (tmp_path / "out.jsonl").read_text()
    assert moved.secrets == "left out" and [secret for secret in SECRETS if secret in text] == []
    again = await import_(tmp_path / "out.jsonl", str(tmp_path / "again"))
    assert again.differences == []  # compared without the secrets the file left out
    async with opened(str(tmp_path / "again")) as place:
        settings = place.notify.load()
        assert settings.webhook_url is None and settings.on_failures is False
        assert client_secret(place.mcp.secrets, "docs") is None
        assert [c.oauth_client_id for c in await place.mcp.list()] == ["seqdesk-app"]
        assert place.preferences("preferences").read()["lang"] == "zh"


async def test_a_file_sealed_with_another_key_is_refused_and_nothing_is_written(tmp_path, seqdesk_database_url,
                                                                                monkeypatch):
    folder = str(tmp_path / "data")
    await fill(folder)
    await fill_settings(folder)
    await export(folder, tmp_path / "out.jsonl")
    monkeypatch.setenv("SEQDESK_SECRET_KEY", Fernet.generate_key().decode())
    with pytest.raises(BadExport, match="sealed with another key than SEQDESK_SECRET_KEY: nothing was imported"):
        await import_(tmp_path / "out.jsonl", str(tmp_path / "again"))
    async with opened(str(tmp_path / "again")) as place:
        assert await documents(place) == {}


async def test_a_teams_people_move_between_databases_and_are_left_out_of_a_folder(
        tmp_path, postgres_server, seqdesk_template, seqdesk_database_url):
    async with opened(seqdesk_database_url) as place:
        assert place.database is not None
        people = place.database.people
        await people.add_person(PersonRecord(person_id="p1", name="ada", roles=frozenset({"admin", "approver"}),
                                             created_at=5, password_hash="$argon2id$v=19$m=65536$c2FsdA$aGFzaA"))
        await people.add_token(TokenRecord(token_id="t1", person_id="p1", label="laptop", digest="d1g3st" * 8,
                                           created_at=6))
    await fill(seqdesk_database_url)
    moved = await export(seqdesk_database_url, tmp_path / "team.jsonl")
    assert moved.counts["person"] == 1
    text = (tmp_path / "team.jsonl").read_text()
    assert "argon2id" not in text and "d1g3st" not in text  # a password's hash and a token's digest are sealed
    other = postgres_server.create_database(template=seqdesk_template)
    try:
        into = await import_(tmp_path / "team.jsonl", other)
        assert into.differences == [] and into.left_out == []
        async with opened(other) as place:
            assert place.database is not None
            ada = await place.database.people.person("ada")
            assert ada is not None and ada.roles == {"admin", "approver"} and ada.password_hash.startswith("$argon2id")
            assert [t.label for t in await place.database.people.tokens_of("p1")] == ["laptop"]
    finally:
        postgres_server.drop_database(other)
    into_folder = await import_(tmp_path / "team.jsonl", str(tmp_path / "folder"))
    assert into_folder.left_out == ["person/ada"] and into_folder.differences == []


async def test_a_database_holding_only_its_first_admin_takes_a_folders_export(tmp_path, seqdesk_database_url):
    async with opened(seqdesk_database_url) as place:
        assert place.database is not None
        await place.database.people.add_person(PersonRecord(person_id="p1", name="ada", roles=frozenset({"admin"}),
                                                            created_at=5))
    folder = str(tmp_path / "data")
    await fill(folder)
    await export(folder, tmp_path / "out.jsonl")
    assert (await import_(tmp_path / "out.jsonl", seqdesk_database_url)).differences == []
    with pytest.raises(NotEmpty):  # now it holds things
        await import_(tmp_path / "out.jsonl", seqdesk_database_url)


async def test_an_import_into_a_store_that_holds_things_refuses_unless_told_to_merge(tmp_path, seqdesk_database_url):
    folder = str(tmp_path / "data")
    await fill(folder)
    await export(folder, tmp_path / "out.jsonl")
    await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    with pytest.raises(NotEmpty, match="already holds .* add --merge"):
        await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    assert (await import_(tmp_path / "out.jsonl", seqdesk_database_url, merge=True)).differences == []


def test_the_commands_say_counts_and_refusals_in_one_line(tmp_path, seqdesk_database_url):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SEQDESK_MEMORY", None)

    def seqdesk(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gui", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    empty = seqdesk("data", "export", str(tmp_path / "nothing"), str(tmp_path / "empty.jsonl"))
    assert empty.returncode == 0 and "nothing" in empty.stdout
    head = json.loads((tmp_path / "empty.jsonl").read_text().splitlines()[0])
    assert head == {"seqdesk_export": 3, "counts": {}, "secrets": "none"}
    assert seqdesk("data", "import", str(tmp_path / "empty.jsonl"), seqdesk_database_url).returncode == 0
    bad = seqdesk("data", "import", str(tmp_path / "missing.jsonl"), seqdesk_database_url)
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr


async def test_the_commands_say_how_secrets_travel_and_refuse_to_write_them_in_clear(tmp_path, monkeypatch):
    folder = str(tmp_path / "data")
    await fill_settings(folder)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SEQDESK_MEMORY", None)

    def seqdesk(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gui", *args], env={**env, **extra}, capture_output=True,
                              text=True, timeout=120)

    sealed = seqdesk("data", "export", folder, str(tmp_path / "sealed.jsonl"))
    assert sealed.returncode == 0, sealed.stderr
    assert "secrets: sealed in the file with SEQDESK_SECRET_KEY" in sealed.stdout
    env.pop("SEQDESK_SECRET_KEY")
    refused = seqdesk("data", "export", folder, str(tmp_path / "clear.jsonl"))
    assert refused.returncode == 2 and "never writes in clear" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "clear.jsonl").exists()
    left = seqdesk("data", "export", folder, str(tmp_path / "left.jsonl"), "--without-secrets")
    assert left.returncode == 0 and "secrets: left out of the file" in left.stdout
    opened_without_key = seqdesk("data", "import", str(tmp_path / "sealed.jsonl"), str(tmp_path / "again"))
    assert opened_without_key.returncode == 2 and "set SEQDESK_SECRET_KEY to the key" in opened_without_key.stderr


async def test_a_broken_record_of_decisions_is_not_exported_and_a_broken_file_not_imported(tmp_path,
                                                                                           seqdesk_database_url):
    folder = tmp_path / "data"
    await decide(str(folder), 4)
    lines = (folder / "audit.jsonl").read_text().splitlines()
    edited = json.loads(lines[1])
    edited["decision"] = "approved" if edited["decision"] == "denied" else "denied"  # rewritten by hand
    (folder / "audit.jsonl").write_text("\n".join([lines[0], json.dumps(edited), *lines[2:]]) + "\n")
    with pytest.raises(BrokenRecord, match="broken at entry 2 .*seqdesk audit verify"):
        await export(str(folder), tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()

    whole = tmp_path / "whole"
    await decide(str(whole), 3)
    await export(str(whole), tmp_path / "whole.jsonl")
    file_lines = (tmp_path / "whole.jsonl").read_text().splitlines()
    dropped = [line for line in file_lines if '"audit/2"' not in line]  # an entry taken out of the file
    (tmp_path / "cut.jsonl").write_text("\n".join(dropped) + "\n")
    with pytest.raises(BadExport, match="record of decisions does not verify .*nothing was imported"):
        await import_(tmp_path / "cut.jsonl", seqdesk_database_url)
    async with opened(seqdesk_database_url) as place:
        assert await documents(place) == {}


async def test_a_record_is_not_chained_onto_a_targets_own_and_saying_so(tmp_path, seqdesk_database_url):
    folder = str(tmp_path / "data")
    await fill(folder)
    await decide(folder, 3)
    await export(folder, tmp_path / "out.jsonl")
    await decide(seqdesk_database_url, 2)  # the database keeps decisions of its own
    moved = await import_(tmp_path / "out.jsonl", seqdesk_database_url, merge=True)
    assert moved.left_out == ["audit/1", "audit/2", "audit/3"] and moved.differences == []
    assert moved.record is not None and moved.record.ok and moved.record.count == 2
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    again = subprocess.run([sys.executable, "-m", "gui", "data", "import", str(tmp_path / "out.jsonl"),
                            seqdesk_database_url, "--merge"], env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "left out: 3 decisions of the file's record, as the target keeps a record of its own" in again.stderr
    assert "record of decisions: the chain of 2 decisions is unbroken" in again.stdout
