"""A rule covers what the person saw, on screen: the scope dialog says what each choice covers (this
exact step as it is now, or the tool whatever it runs), and Settings shows a rule whose step has
changed since as made for an earlier version of its sequence, which can still be removed."""

from __future__ import annotations

from nicegui.testing import User
from support.builders import tools
from support.ui import (
    R,
    engine,
    engine_open,  # noqa: F401  (autouse: wait for the engine)
    expect,
    wait,
)


def benign(command: str) -> dict:
    return {"name": "benign", "groups": [{"name": "benign-g", "in": {}, "out": {},
                                          "tools": tools({"tool": "cmd_run", "args": {"command": command}})}]}


async def test_the_sequence_scope_says_this_exact_step_and_settings_shows_it_for_an_earlier_version(user: User):
    await engine().create(benign("echo one"))
    await user.open("/inbox")
    created = expect("interaction.created")
    run = await engine().start("benign")
    await wait(created)
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    await user.should_see("This exact step of the sequence 'benign' (cmd_run in group 'benign-g'), as it is now, "
                          "every time the sequence runs; if the step changes, you will be asked again")
    await user.should_see("Every cmd_run request, in every sequence, whatever it runs, until you take it back in "
                          "Settings")
    finished = expect("run.finished", lambda e: e.run_id == run.run_id)
    user.find(marker="scope-choice").elements.pop().set_value("sequence")
    user.find(marker="scope-confirm").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    [rule] = await engine().approval_rules()
    words = "cmd_run in one step of the sequence 'benign' (group 'benign-g'), as it was when you allowed it"

    await user.open("/settings")
    await user.should_see(f"Runs without asking: {words}", retries=R)
    await user.should_not_see("For an earlier version of 'benign'")

    await engine().rename("benign", benign("echo two"))  # the step the person saw is no longer there
    await user.open("/settings")
    await user.should_see(marker=f"approval-rule-earlier-{rule.rule_id}", retries=R)
    await user.should_see("For an earlier version of 'benign': it allows nothing now, so that step asks you again.")
    await user.should_see(words)
    await user.should_not_see(f"Runs without asking: {words}")
    user.find(marker=f"revoke-rule-{rule.rule_id}").click()
    await user.should_see(f"Removed: {words}", retries=R)
    assert await engine().approval_rules() == []
