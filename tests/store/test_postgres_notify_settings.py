"""The notification settings on a team's PostgreSQL database (`gui.pgstore.notify_settings`): kept
across a restart, their secret parts (the webhook and ntfy addresses, the SMTP password) never plain in
the database, a wrong `SEQDESK_SECRET_KEY` refused as for MCP secrets, and a change saved in one
process used by another's notifier."""

from __future__ import annotations

import httpx
import psycopg
import pytest
from cryptography.fernet import Fernet
from fastapi import FastAPI
from support.waiting import wait_until

from gui.api import register_api
from gui.api.request_gate import Served
from gui.notify import Notifier, SettingsInput
from gui.pgstore import SecretKeyError, open_pg_stores
from gui.runtime import open_runtime

pytestmark = pytest.mark.postgres
T = 30.0
PASSWORD = "pa55-w0rd-kept"
WEBHOOK = "https://hooks.example.org/services/T0K3N-in-the-path"
NTFY = "https://ntfy.example.org/seqdesk-secret-topic"
GIVEN = SettingsInput.model_validate({
    "webhook_url": WEBHOOK, "ntfy_url": NTFY, "on_failures": False,
    "smtp": {"host": "smtp.example.org", "port": 465, "security": "ssl", "username": "lab",
             "password": PASSWORD, "from_addr": "seqdesk@example.org", "to_addr": "team@example.org"}})


def _row(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT doc::text FROM preferences WHERE name = 'notifications'").fetchone()
    assert row is not None, "the settings were not kept in the database"
    return str(row[0])


async def test_settings_outlive_a_restart_with_their_secrets_encrypted(seqdesk_database_url):
    key, other = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    stores = await open_pg_stores(seqdesk_database_url, secret_key=key)
    Notifier(stores.notify_settings).update(GIVEN)
    await stores.close()  # every write settled

    kept = _row(seqdesk_database_url)
    for secret in (PASSWORD, "T0K3N", "seqdesk-secret-topic"):
        assert secret not in kept, f"{secret} is plain in the database: {kept}"
    assert "smtp.example.org" in kept and "sealed" in kept

    again = await open_pg_stores(seqdesk_database_url, secret_key=key)  # as at the next start
    try:
        settings = Notifier(again.notify_settings).settings
        assert (settings.webhook_url, settings.ntfy_url, settings.on_failures) == (WEBHOOK, NTFY, False)
        assert settings.smtp is not None and settings.smtp.password is not None
        assert (settings.smtp.host, settings.smtp.port, settings.smtp.password.get_secret_value()) == (
            "smtp.example.org", 465, PASSWORD)
        assert settings.public()["smtp"]["password_set"] is True and PASSWORD not in str(settings.public())
    finally:
        await again.close()

    with pytest.raises(SecretKeyError) as refused:
        await open_pg_stores(seqdesk_database_url, secret_key=other)
    assert str(refused.value) == ("SEQDESK_SECRET_KEY is not the key this database's secrets were kept with: "
                                  "SeqDesk did not start, and changed nothing")
    assert _row(seqdesk_database_url) == kept  # nothing overwritten


async def test_without_a_key_a_secret_is_refused_and_nothing_kept(seqdesk_database_url):
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        notifier = Notifier(stores.notify_settings)
        with pytest.raises(ValueError, match="start it with SEQDESK_SECRET_KEY set"):
            notifier.update(GIVEN)
        assert notifier.settings.smtp is None and notifier.settings.webhook_url is None
        notifier.update(SettingsInput(on_requests=False))  # nothing secret: kept without a key
        await stores.preferences.settle()
        assert '"on_requests": false' in _row(seqdesk_database_url)
    finally:
        await stores.close()


async def test_the_api_without_a_key_answers_422_with_the_sentence(seqdesk_database_url, engine_slot):
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    notifier = Notifier(stores.notify_settings)
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process(), notifier=lambda: notifier)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            answer = await client.put("/api/settings/notifications", json={"webhook_url": WEBHOOK})
        assert answer.status_code == 422, answer.text
        assert "start it with SEQDESK_SECRET_KEY set" in answer.json()["detail"]
        assert notifier.settings.webhook_url is None
    finally:
        await stores.close()


async def test_a_change_saved_in_one_process_reaches_the_others_notifier(seqdesk_database_url, monkeypatch):
    monkeypatch.setenv("SEQDESK_SECRET_KEY", Fernet.generate_key().decode())
    here, there = await open_runtime(store=seqdesk_database_url), await open_runtime(store=seqdesk_database_url)
    try:
        assert here.database is not None and there.database is not None
        saving, hearing = Notifier(here.database.notify_settings), Notifier(there.database.notify_settings)
        there.database.follow_notify_settings(hearing.reload)  # as gui.context does
        redrawn: list[bool] = []
        hearing.on_change.append(lambda: redrawn.append(True))
        saving.update(GIVEN)
        await wait_until(lambda: hearing.settings.webhook_url == WEBHOOK, "the other process's notifier reloads",
                         timeout=T)
        smtp = hearing.settings.smtp
        assert smtp is not None and smtp.password is not None and smtp.password.get_secret_value() == PASSWORD
        assert hearing.settings.channels() == ["webhook", "ntfy", "email"] and redrawn

        saving.update(SettingsInput.model_validate({**GIVEN.model_dump(), "webhook_url": None,
                                                    "smtp": {**GIVEN.model_dump()["smtp"], "password": None}}))
        await wait_until(lambda: hearing.settings.webhook_url is None, "a removed channel reaches it too", timeout=T)
        smtp = hearing.settings.smtp
        assert smtp is not None and smtp.password is not None and smtp.password.get_secret_value() == PASSWORD
    finally:
        await here.close()
        await there.close()
