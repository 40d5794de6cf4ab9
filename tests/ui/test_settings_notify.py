"""Settings → "Notifications": saving channels, a test that arrives, a failure shown."""

from __future__ import annotations

from nicegui.testing import User
from support.listeners import closed_port, http_listener
from support.ui import app_ctx, engine_open  # noqa: F401


async def test_a_webhook_is_saved_and_its_test_arrives(user: User):
    with http_listener() as hook:
        await user.open("/settings")
        await user.should_see("Notifications")
        user.find(marker="notify-webhook").type(hook.url + "/in")
        user.find(marker="notify-test-webhook").click()
        arrived = (await hook.arrived(1))[0]
        assert arrived.path == "/in" and arrived.body["event"] == "test"
        await user.should_see("Last sent at", retries=50)
        assert app_ctx().notifier is not None and app_ctx().notifier.settings.webhook_url == hook.url + "/in"


async def test_a_channel_that_fails_says_why_in_settings(user: User):
    await user.open("/settings")
    user.find(marker="notify-ntfy").type(f"http://127.0.0.1:{closed_port()}/topic")
    user.find(marker="notify-test-ntfy").click()
    await user.should_see("Last try failed at", retries=50)
    await user.should_see("could not reach 127.0.0.1")


async def test_a_bad_address_is_explained_and_nothing_is_kept(user: User):
    await user.open("/settings")
    user.find(marker="notify-webhook").type("example.org/hook")
    user.find(marker="notify-save").click()
    await user.should_see("must be a web address starting with http", retries=20)
    assert app_ctx().notifier is not None and app_ctx().notifier.settings.webhook_url is None


async def test_the_desktop_notice_choice_is_kept_by_the_app(user: User):
    await user.open("/settings")
    prefs = app_ctx().preferences
    assert prefs is not None and prefs.read().get("desktop_notifications") is None
    user.find(marker="notify-desktop").click()
    assert prefs.read()["desktop_notifications"] is False
    await user.open("/inbox")  # every page's frame reads it: the browser is told not to pop up notices
    await user.should_see("Needs you")


async def test_phone_access_says_why_it_cannot_turn_on(user: User):
    await user.open("/settings")
    await user.should_see("Use on your phone")
    await user.should_see("None yet.")  # no paired phones
    user.find(marker="phone-switch").click()
    await user.should_see(marker="phone-problem", retries=50)
    assert app_ctx().phone is not None and not app_ctx().phone.on
