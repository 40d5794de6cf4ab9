"""Consent in the inbox: which parts came from inputs, how far an approval reaches, edits, and what
the history says of each. Driven through the real engine with NiceGUI's simulated user."""

from __future__ import annotations

from nicegui.testing import User
from test_inbox import R, engine, expect, shell, start_command_run, tools, wait
from ui_support import engine_open  # noqa: F401  (autouse: wait for the engine)


def test_the_parts_of_a_command_that_came_from_inputs_are_cut_out_with_their_names():
    from gui.ui.components.inbox.body import highlight_parts

    parts = highlight_parts("echo 'a b' and 'a b' x", {"host": "'a b'", "empty": ""})
    assert parts == [("echo ", None), ("'a b'", "host"), (" and ", None), ("'a b'", "host"), (" x", None)]
    assert highlight_parts("plain", {}) == [("plain", None)]


async def test_the_command_card_shows_which_parts_came_from_inputs(user: User):
    doc = {"name": "greet-host", "groups": [{"name": "greet-host-g", "in": {"host": "string"}, "out": {},
                                             "tools": tools({"tool": "cmd_run", "args": {
                                                 "command": "echo detail for $args.host"}})}]}
    await engine().create(doc)
    created = expect("interaction.created")
    await engine().start("greet-host", {"host": "x; touch INJECTED"})
    event = await wait(created)
    await user.open(f"/inbox/{event.data['interaction_id']}")
    await user.should_see(marker="bound-host", retries=R)
    await user.should_see("'x; touch INJECTED'")  # the highlighted part: quoted, one word
    await user.should_see(marker="bound-value-host")
    await user.should_see("Parts that came from inputs (inserted as text, never as commands)")


async def test_an_input_a_program_runs_as_code_is_marked_beside_its_value_and_the_others_are_not(user: User):
    doc = {"name": "code-host", "groups": [{"name": "code-host-g", "in": {"host": "string", "code": "string"},
                                            "out": {}, "tools": tools({"tool": "cmd_run", "args": {
                                                "command": 'echo "for $args.host"; sh -c "$args.code"'}})}]}
    saved = await engine().create(doc)
    assert [w.code for w in saved[1].warnings] == ["input-runs-as-command"]
    created = expect("interaction.created")
    await engine().start("code-host", {"host": 'a "b" $c', "code": "id"})
    event = await wait(created)
    await user.open(f"/inbox/{event.data['interaction_id']}")
    await user.should_see(marker="runs-as-code-code", retries=R)
    await user.should_see("This input will be run as a command (by sh -c)")
    await user.should_not_see(marker="runs-as-code-host")
    await user.should_see(marker="bound-host")  # escaped inside "…", still found and marked
    await user.should_see("Parts that came from inputs")
    await user.should_not_see("Parts that came from inputs (inserted as text, never as commands)")


async def test_a_prefix_scope_is_written_out_confirmed_then_shown_in_settings_and_removable(user: User):
    await user.open("/inbox")
    await start_command_run("echo hello there")
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    user.find(marker="scope-choice").elements.pop().set_value("prefix")
    await user.should_see("Every command that starts with `echo hello` (never one with ;, |, & or other operators)")
    user.find(marker="scope-confirm").click()
    await user.should_see("Now allowed without asking: commands that start with `echo hello`", retries=R)
    [rule] = await engine().approval_rules()
    assert (rule.scope, rule.prefix) == ("prefix", "echo hello")
    await user.open("/settings")
    await user.should_see(marker=f"approval-rule-{rule.rule_id}", retries=R)
    await user.should_see("Runs without asking: commands that start with `echo hello`")
    user.find(marker=f"revoke-rule-{rule.rule_id}").click()
    await user.should_see("Removed: commands that start with `echo hello`", retries=R)
    assert await engine().approval_rules() == []


async def test_cancelling_the_scope_choice_sends_nothing(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo wait")
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    user.find(marker="scope-cancel").click()
    [waiting] = await engine().pending(run_id)
    assert waiting.status == "pending" and await engine().approval_rules() == []


async def test_a_command_can_be_edited_before_it_runs_and_a_bad_edit_says_why(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo first")
    await user.should_see(marker="edit-command", retries=R)
    user.find(marker="edit-command").click()
    box = user.find(marker="edited-command").elements.pop()
    box.set_value("")
    user.find(marker="approve-edited").click()
    await user.should_see("the edited input does not fit cmd_run", retries=R)
    [still] = await engine().pending(run_id)
    box.set_value("echo second")
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve-edited").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    record = await engine().get_run(run_id)
    assert record.outputs["said"].strip() == "second"
    assert record.groups[0].tools[0].original_args["command"] == "echo first"
    assert still.status == "pending"


def test_the_history_says_which_rule_approved_and_what_was_edited():
    from gui.core.interactions import ApprovalResponse, InteractionRecord, ResolvedResult
    from gui.ui.components.inbox.format import outcome

    request = shell("h-1")
    approved = ResolvedResult(interaction_id="h-1", response=ApprovalResponse(decision="approved"))
    auto = InteractionRecord(request=request, status="resolved", auto=True, rule_id="r1",
                             rule_text="commands that start with `git status`", resolved_at=1, result=approved)
    assert outcome(auto).details == "Approved automatically: by the rule: commands that start with `git status`"
    edited = auto.model_copy(update={"auto": False, "result": ResolvedResult(interaction_id="h-1", response=(
        ApprovalResponse(decision="approved", edited_input={"command": "echo edited"})))})
    assert outcome(edited).details == "with an edit: echo edited"


async def test_confirming_a_wider_approval_while_another_request_waits_opens_the_next_cleanly(user: User, caplog):
    """The dialog lives in the answered request's card, which is cleared when the next one opens: the
    next one's set-up must not run in the deleted card (it did: "the parent element … deleted")."""
    await user.open("/inbox")
    first = await start_command_run("echo first", name="first-seq")
    second = await start_command_run("echo second", name="second-seq")
    await user.should_see(marker="always-allow", retries=R)
    assert len(await engine().pending(first)) == len(await engine().pending(second)) == 1
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    user.find(marker="scope-confirm").click()
    await user.should_see("Now allowed without asking", retries=R)
    await user.should_see(marker="always-allow", retries=R)  # the other request, opened next
    assert sorted([len(await engine().pending(first)), len(await engine().pending(second))]) == [0, 1]
    assert "has been deleted" not in caplog.text
