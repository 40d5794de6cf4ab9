""""Test this group": one group of an unsaved draft runs with sample inputs through the engine's
door; approvals are still asked (in the Inbox), and the results appear beside the group."""

from __future__ import annotations

from nicegui.testing import User
from support.editor import R, add_tool, choose, element, find, new_editor, one_group
from support.ui import app_ctx

from gui.core.asks.interactions import ApprovalResponse


async def test_a_group_runs_with_a_sample_input_and_shows_what_it_gives_back(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("who")
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("greeting")
    with user.client:
        element(user, "group-1", "tool-1", "arg-value-value").value = "hi ⤷who"
    choose(user, ("group-1", "tool-1", "save-to"), "greeting · text")
    find(user, "group-1", "group-test-open").click()
    await user.should_see(marker="test-run", retries=R)
    find(user, "group-test", "arg-who").type("Ada")
    find(user, "group-test", "test-run").click()
    await user.should_see("The test succeeded", retries=100)
    await user.should_see(marker="test-output-greeting", retries=R)
    await user.should_see("hi Ada", retries=R)
    runs = await app_ctx().engine.list_runs()
    assert runs[0].sequence == "g1 (test)" and runs[0].args == {"who": "Ada"}
    assert await app_ctx().engine.list_sequences() == []  # nothing was saved


async def test_a_command_in_a_test_still_asks_first_through_the_inbox(user: User) -> None:
    await new_editor(user)
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("shell")
    await add_tool(user, "group-1", "cmd_run")
    find(user, "group-1", "tool-1", "arg-command-value").type("echo tested")
    find(user, "group-1", "group-menu").click()
    find(user, "group-1", "group-test-menu").click()
    find(user, "group-test", "test-run").click()
    await user.should_see("Waiting for you", retries=100)
    await user.should_see(marker="test-inbox", retries=R)
    (pending,) = await app_ctx().engine.pending()
    assert element(user, "test-inbox").props["href"] == f"/inbox/{pending.interaction_id}"
    await app_ctx().engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
    await user.should_see("The test succeeded", retries=100)
    await user.should_see("tested", retries=R)


async def test_a_test_of_a_broken_group_says_why_it_did_not_start(user: User) -> None:
    await new_editor(user)
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("empty")
    find(user, "group-1", "group-test-open").click()
    find(user, "group-test", "test-run").click()
    await user.should_see(marker="test-problem", retries=R)
    await user.should_see("Add at least one tool", retries=R)
