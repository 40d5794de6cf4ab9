"""Settings → Record of decisions: a newcomer reads when, who or what decided, what was decided and
what was shown; a record edited afterwards is said to be broken, naming the entry."""

from __future__ import annotations

from nicegui.testing import User
from support.interactions import shell
from support.ui import app_ctx

from gui.core.asks import Answerer, ApprovalResponse
from gui.memory import MemoryAuditLog


async def test_a_decision_is_listed_with_who_decided_and_the_command_that_was_shown(user: User):
    engine = app_ctx().engine
    await user.open("/settings")
    await user.should_see("No decisions yet", retries=20)
    await user.should_not_see(marker="decisions-verdict")  # no "chain of 0 decisions is unbroken"
    await engine.interactions.request(shell("ui-a1"))
    await engine.respond("ui-a1", ApprovalResponse(decision="denied", reason="not today"), Answerer(via="app"))
    user.find(marker="decisions-refresh").click()
    await user.should_see("You, in the app", retries=50)
    await user.should_see("Denied — reason: not today")
    await user.should_see("$ rm -rf build")
    await user.should_see("The record is intact: the chain of 1 decision is unbroken.")
    await user.should_not_see("No decisions yet")


async def test_an_entry_changed_afterwards_is_named_on_the_card(user: User):
    engine = app_ctx().engine
    for n in range(2):
        await engine.interactions.request(shell(f"ui-b{n}"))
        await engine.respond(f"ui-b{n}", ApprovalResponse(decision="approved"), Answerer(via="api"))
    audit = engine.interactions.audit
    assert isinstance(audit, MemoryAuditLog)
    audit.edit(1, lambda document: document.update(decision="denied"))
    await user.open("/settings")
    await user.should_see("The HTTP API, with the app's token", retries=50)
    await user.should_see("The record was changed: the chain is broken at entry 1", retries=20)
