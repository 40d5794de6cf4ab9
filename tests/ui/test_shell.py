"""The frame every page shares: navigation, the live pending badge, dark mode, notifications."""

from __future__ import annotations

import time
import uuid

import pytest
from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx, engine_open  # noqa: F401  (autouse: wait for the engine)

from gui.core.asks.interactions import ApprovalResponse, InteractionRecord, ShellApprovalRequest, ToolSource
from gui.ui import theme

R = 50





@pytest.fixture
def framed_page() -> str:
    """A page of our own inside the frame, so these tests do not depend on other pages."""

    @ui.page("/framed")
    def page() -> None:
        with theme.frame("Framed", app_ctx()):
            ui.label("framed content")

    return "/framed"


def shell_request(iid: str | None = None) -> ShellApprovalRequest:
    return ShellApprovalRequest(interaction_id=iid or uuid.uuid4().hex, turn_id="run-1",
                                source=ToolSource(tool_call_id="c", tool_name="cmd_run"),
                                created_at=int(time.time() * 1000), title="Run a command", command="ls",
                                cwd="/tmp", reason="because", operation="exec", sequence_name="Nightly")


async def test_every_page_has_the_navigation(user: User, framed_page: str):
    await user.open(framed_page)
    await user.should_see("framed content")
    for label in ("Sequences", "Run", "Inbox", "Runs", "Settings"):
        await user.should_see(marker=f"nav-{label.lower()}")
    user.find(marker="nav-inbox").click()
    await user.should_see("You're all caught up.", retries=R)


async def test_inbox_badge_counts_pending_requests_live(user: User, framed_page: str):
    service = app_ctx().engine.interactions
    await service.request(shell_request("b-1"))
    await user.open(framed_page)
    await user.should_see(marker="inbox-badge", content="1", retries=R)
    await service.request(shell_request("b-2"))
    await user.should_see(marker="inbox-badge", content="2", retries=R)
    await service.respond("b-1", ApprovalResponse(decision="approved"))
    await service.respond("b-2", ApprovalResponse(decision="denied"))
    await user.should_not_see(marker="inbox-badge", retries=R)


async def test_a_new_request_raises_a_desktop_notification(user: User, framed_page: str, monkeypatch):
    notified: list[InteractionRecord] = []
    monkeypatch.setattr(theme, "_notify", notified.append)
    await user.open(framed_page)
    await app_ctx().engine.interactions.request(shell_request("n-1"))
    await user.should_see(marker="inbox-badge", content="1", retries=R)
    assert [r.interaction_id for r in notified] == ["n-1"]


async def test_dark_mode_is_remembered_across_pages(user: User, framed_page: str):
    await user.open(framed_page)
    dark = next(iter(user.find(kind=ui.dark_mode).elements))
    assert dark.value is False
    user.find(marker="dark-toggle").click()
    assert dark.value is True
    await user.open(framed_page)
    assert next(iter(user.find(kind=ui.dark_mode).elements)).value is True
