"""Notices off the desktop, against real listeners: a local HTTP server (webhook, ntfy) and a local
SMTP server (aiosmtpd). The engine is a real in-memory one; waits are on arrivals, bounded."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.listeners import closed_port, http_listener, smtp_server

from gui.core.door.engine import Engine
from gui.core.events import InteractionCreated
from gui.notify import Notifier, NotifySettingsStore, SettingsInput

T = 10.0
SHELL = {"name": "shell", "description": "says hello", "groups": [
    {"name": "say", "in": {}, "out": {"text": "string"},
     "tools": '{"tool": "cmd_run", "args": {"command": "echo hello"}, "as": "text"} ;'}]}


def notifier(folder: Path | None = None, waits: list[float] | None = None, **settings: object) -> Notifier:
    async def sleep(seconds: float) -> None:
        if waits is not None:
            waits.append(seconds)
        await asyncio.sleep(seconds)

    target = Notifier(NotifySettingsStore(folder), base_url=lambda: "http://127.0.0.1:9999", delays=(0.05, 0.1, 0.2),
                      sleep=sleep)
    target.update(SettingsInput.model_validate(settings))
    return target


async def pending(engine: Engine) -> str:
    created: asyncio.Queue[str] = asyncio.Queue()
    stop = engine.subscribe(lambda e: created.put_nowait(e.interaction_id) if isinstance(e, InteractionCreated)
                            else None)
    try:
        await engine.create(SHELL)
        await engine.start("shell")
        async with asyncio.timeout(T):
            return await created.get()
    finally:
        stop()


async def test_a_request_reaches_the_webhook_ntfy_and_email(current_engine):
    with http_listener() as hook, http_listener() as ntfy, smtp_server() as mail:
        target = notifier(webhook_url=hook.url + "/hook", ntfy_url=ntfy.url + "/seqdesk-topic",
                          smtp={"host": "127.0.0.1", "port": mail.port, "security": "none",
                                "from_addr": "seqdesk@example.org", "to_addr": "me@example.org"})
        target.attach(current_engine)
        iid = await pending(current_engine)
        webhook = (await hook.arrived(1))[0]
        assert webhook.path == "/hook"
        body = webhook.body
        assert body["interaction_id"] == iid and body["event"] == "request"
        assert body["title"] == "Run a command" and body["asks"] == "echo hello"
        assert body["url"] == f"http://127.0.0.1:9999/inbox/{iid}"
        assert body["expires_at"] is None or body["expires_at"].endswith("Z")
        published = (await ntfy.arrived(1))[0]
        assert published.path == "/"  # ntfy's JSON publishing: the topic is in the body
        assert published.body["topic"] == "seqdesk-topic" and published.body["click"] == body["url"]
        assert "echo hello" in published.body["message"]
        email = (await mail.arrived(1))[0]
        assert email["Subject"] == "SeqDesk: Run a command" and email["To"] == "me@example.org"
        assert body["url"] in email.get_payload()
        await target.idle()
        assert all(s.sent == 1 and s.error is None for s in target.status().values())
        await target.close()


async def test_a_failing_webhook_is_tried_again_with_backoff(current_engine):
    waits: list[float] = []
    with http_listener(statuses=[500, 503]) as hook:
        target = notifier(waits=waits, webhook_url=hook.url)
        target.attach(current_engine)
        await pending(current_engine)
        arrivals = await hook.arrived(3)
        assert arrivals[0].body == arrivals[2].body
        # The wait before each new attempt grows (the waits asked for: timing them would measure the
        # machine's load); each attempt came after its wait.
        assert waits == [0.05, 0.1]
        gaps = [b.at - a.at for a, b in zip(arrivals, arrivals[1:], strict=False)]
        assert gaps[0] >= 0.05 and gaps[1] >= 0.1
        await target.idle()
        status = target.status()["webhook"]
        assert status.sent == 1 and status.failed == 2 and status.error is None
        await target.close()


async def test_a_dead_channel_is_reported_and_never_holds_up_the_run(current_engine):
    target = notifier(webhook_url=f"http://127.0.0.1:{closed_port()}/hook", on_failures=False)
    target.attach(current_engine)
    iid = await pending(current_engine)
    # the run waits for the person, not for the webhook: it can be answered at once
    result = await current_engine.respond(iid, {"kind": "approval", "decision": "denied"})
    assert result.status == "resolved"
    await target.idle()
    status = target.status()["webhook"]
    assert status.failed == 4 and status.sent == 0
    assert status.error is not None and "could not reach 127.0.0.1" in status.error
    await target.close()


async def test_a_failed_run_is_sent_with_a_link_to_it(current_engine):
    with http_listener() as hook:
        target = notifier(webhook_url=hook.url, on_requests=False)
        target.attach(current_engine)
        iid = await pending(current_engine)  # not sent: on_requests is off
        await current_engine.respond(iid, {"kind": "approval", "decision": "denied"})  # the run fails
        body = (await hook.arrived(1))[0].body
        run_id = (await current_engine.get_interaction(iid)).request.turn_id
        assert body["event"] == "run_failed" and body["run_id"] == run_id and len(hook.received) == 1
        assert body["url"] == f"http://127.0.0.1:9999/run/{run_id}" and "shell" in body["title"]
        await target.close()


async def test_a_failed_runs_notice_says_why_in_the_words_of_its_run_page(current_engine):
    from gui import i18n

    saved = dict(i18n._default)
    i18n.set_defaults(started="zh_CN")
    try:
        with http_listener() as hook:
            target = notifier(webhook_url=hook.url, on_requests=False)
            target.attach(current_engine)
            iid = await pending(current_engine)
            await current_engine.cancel_interaction(iid, "no_one_to_ask")  # the run fails: nobody to ask
            body = (await hook.arrived(1))[0].body
            assert body["asks"].startswith("组“say”失败："), body["asks"]  # as the run page says it, in 中文
            await target.close()
    finally:
        i18n._default.update(saved)


async def test_a_test_says_whether_it_arrived(current_engine):
    with http_listener(statuses=[404]) as hook:
        target = notifier(webhook_url=hook.url)
        assert await target.send_test("webhook") == f"127.0.0.1:{hook.url.rsplit(':', 1)[1]} answered 404 Not Found"
        assert await target.send_test("webhook") is None
        assert (await hook.arrived(2))[1].body["event"] == "test"
    with pytest.raises(ValueError, match="set the email channel up first"):
        await target.send_test("email")


async def test_the_smtp_password_is_kept_on_disk_for_this_user_only_and_kept_when_left_out(tmp_path):
    target = notifier(tmp_path, smtp={"host": "mail.example.org", "from_addr": "a@b.c", "to_addr": "d@e.f",
                                      "username": "me", "password": "s3cret"})
    path = tmp_path / "notifications.json"
    assert path.stat().st_mode & 0o077 == 0
    assert "s3cret" not in str(target.public()) and "password" not in target.public()["smtp"]
    assert target.public()["smtp"]["password_set"] is True
    target.update(SettingsInput.model_validate({"smtp": {**target.public()["smtp"]}}))
    again = Notifier(NotifySettingsStore(tmp_path))  # as at the next start
    assert again.settings.smtp is not None and again.settings.smtp.password is not None
    assert again.settings.smtp.password.get_secret_value() == "s3cret"
    again.update(SettingsInput.model_validate({"smtp": {**again.public()["smtp"], "password": ""}}))
    assert again.public()["smtp"]["password_set"] is False


@pytest.mark.parametrize(("given", "says"), [
    ({"webhook_url": "ftp://x"}, "must be a web address starting with http"),
    ({"ntfy_url": "https://ntfy.sh"}, "must name a topic"),
    ({"smtp": {"host": "m", "from_addr": "nope", "to_addr": "a@b.c"}}, "from_addr"),
])
def test_bad_settings_say_what_is_wrong(given, says):
    with pytest.raises(ValueError, match=says):
        notifier(**given)
