"""`seqdesk people add|token|list|remove` on a real team database (PostgreSQL), as a script runs it:
the first admin with a password, an invite link for the next, a personal token printed once (and kept
only hashed), a removal; `--store` or SEQDESK_STORE; a data folder is refused with a sentence."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest
from support.cli import seqdesk

pytestmark = pytest.mark.postgres

PASSWORD = "first-admin-password"


def test_people_from_the_command_line(seqdesk_database_url: str, data: Path, monkeypatch: pytest.MonkeyPatch):
    url = seqdesk_database_url
    added = seqdesk("people", "add", "ada", "--role", "admin", "--password", "-", "--store", url, data=data,
                    stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    assert "ada was added (admin) and can sign in now" in added.stdout and PASSWORD not in added.stdout
    monkeypatch.setenv("SEQDESK_STORE", url)
    monkeypatch.setenv("SEQDESK_PUBLIC_URL", "https://seqdesk.example.org")
    invited = seqdesk("people", "add", "li.wei", "--role", "approver", "--role", "oncall", data=data)
    assert invited.returncode == 0, invited.stderr
    link = invited.stdout.strip().splitlines()[-1]
    assert link.startswith("https://seqdesk.example.org/invite/") and len(link) > 60
    again = seqdesk("people", "add", "li.wei", "--role", "runner", data=data)
    assert again.returncode == 1 and "li.wei is a person here already" in again.stderr
    bad = seqdesk("people", "add", "Bo Smith", "--role", "runner", data=data)
    assert bad.returncode == 2 and "cannot be a person's name" in bad.stderr
    token = seqdesk("people", "token", "li.wei", "--name", "laptop CLI", data=data)
    assert token.returncode == 0, token.stderr
    secret = token.stdout.strip()
    assert secret.startswith("sdp_") and "shown only now" in token.stderr
    with psycopg.connect(url) as conn:
        kept = conn.execute("SELECT label, digest FROM person_tokens").fetchall()
        stored = conn.execute("SELECT password_hash FROM people WHERE name = 'ada'").fetchone()
    assert [row[0] for row in kept] == ["laptop CLI"] and secret not in kept[0][1]
    assert stored[0].startswith("$argon2id$")
    listed = seqdesk("people", "list", data=data)
    assert listed.returncode == 0
    assert listed.stdout.splitlines() == ["ada\tadmin", "li.wei\tapprover, oncall  (invited: no password yet)"]
    removed = seqdesk("people", "remove", "li.wei", data=data)
    assert removed.returncode == 0 and "their tokens no longer work" in removed.stdout
    assert seqdesk("people", "list", data=data).stdout.splitlines() == ["ada\tadmin"]
    gone = seqdesk("people", "remove", "li.wei", data=data)
    assert gone.returncode == 1 and "there is no person 'li.wei'" in gone.stderr


def test_a_data_folder_has_no_people(data: Path):
    env_store = os.environ.get("SEQDESK_STORE")
    assert env_store is None or not env_store.startswith("postgres")
    refused = seqdesk("people", "list", data=data)
    assert refused.returncode == 2 and "people are kept on a team's database" in refused.stderr
    missing = seqdesk("people", "add", "ada", data=data)
    assert missing.returncode == 2 and "at least one --role" in missing.stderr
