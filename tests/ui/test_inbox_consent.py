"""Consent in the inbox: which parts came from inputs, how far an approval reaches, edits, and what
the history says of each. Driven through the real engine with NiceGUI's simulated user."""

from __future__ import annotations

from nicegui.testing import User
from support.builders import tools
from support.ui import (
    R,
    engine,
    engine_open,  # noqa: F401  (autouse: wait for the engine)
    expect,
    shell,
    start_command_run,
    wait,
)


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
    await user.should_see("The commands of this exact step (cmd_run in group 'inbox-seq-g') that start with "
                          "`echo hello`, whatever its inputs put after them, wherever the step runs as it is now "
                          "(never one with ;, |, & or other operators); if the step changes, you will be asked again")
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


def classes_of(user: User, marker: str) -> list[str]:
    return list(next(iter(user.find(marker=marker).elements))._classes)


def text_of(user: User, marker: str) -> str:
    return str(next(iter(user.find(marker=marker).elements)).props.get("label") or
               next(iter(user.find(marker=marker).elements)).text)


async def test_an_edited_command_is_what_the_primary_button_runs_and_says(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo first")
    await user.should_see(marker="edit-command", retries=R)
    assert text_of(user, "approve") == "Run once"
    user.find(marker="edit-command").click()
    box = user.find(marker="edited-command").elements.pop()
    box.set_value("echo second")
    await user.should_see("Run the edited command", retries=R)
    assert text_of(user, "approve") == "Run the edited command"
    assert "line-through" in classes_of(user, "asked-command")  # what was asked, struck through
    await user.should_see("Asked to run")
    await user.should_see("Changed by you: this runs instead")
    assert text_of(user, "edited-command-text") == "echo second"
    assert next(iter(user.find(marker="always-allow").elements)).enabled is False
    await user.should_see(marker="allow-more-off")
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    record = await engine().get_run(run_id)
    assert record.outputs["said"].strip() == "second"
    tool = record.groups[0].tools[0]
    assert (tool.args["command"], tool.original_args["command"]) == ("echo second", "echo first")
    answered = await engine().get_interaction(tool.interaction_id)
    assert answered.result.response.edited_input["command"] == "echo second" and answered.result.response.scope == \
        "once"
    await user.should_see("Approved: your edited command will run.", retries=R)
    await user.open(f"/run/{run_id}")  # the run's record: the card says it, the detail shows both texts
    await user.should_see(marker="changed-note", retries=R)  # the card: what was asked, struck through
    assert text_of(user, "changed-from") == "echo first" and "line-through" in classes_of(user, "changed-from")
    await user.should_see("Changed by you, from:")
    await user.should_see("Run: echo second")
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-original-args", retries=R)
    assert text_of(user, "changed-before-command") == "echo first"
    assert "line-through" in classes_of(user, "changed-before-command")
    assert text_of(user, "changed-after-command") == "echo second"
    await user.open("/inbox")  # and its History
    user.find(marker="tab-history").click()
    await user.should_see(marker="decided", content="Changed by you: echo first → echo second", retries=R)


async def test_an_edit_changed_back_to_what_was_asked_is_no_edit(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo asked")
    await user.should_see(marker="edit-command", retries=R)
    user.find(marker="edit-command").click()
    box = user.find(marker="edited-command").elements.pop()
    box.set_value("echo other")
    await user.should_see("Run the edited command", retries=R)
    user.find(marker="undo-edit").click()
    await user.should_not_see("Run the edited command", retries=R)
    assert box.value == "echo asked" and text_of(user, "approve") == "Run once"
    assert "line-through" not in classes_of(user, "asked-command")
    assert next(iter(user.find(marker="always-allow").elements)).enabled is True
    box.set_value("echo other")
    await user.should_see("Run the edited command", retries=R)
    box.set_value("echo asked")  # typed back by hand: the same
    await user.should_see("Run once", retries=R)
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    record = await engine().get_run(run_id)
    assert record.groups[0].tools[0].original_args is None
    answered = await engine().get_interaction(record.groups[0].tools[0].interaction_id)
    assert answered.result.response.edited_input is None


async def test_a_bad_edit_says_why_and_the_request_stays_to_be_fixed(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo first")
    await user.should_see(marker="edit-command", retries=R)
    user.find(marker="edit-command").click()
    box = user.find(marker="edited-command").elements.pop()
    box.set_value("")
    user.find(marker="approve").click()
    await user.should_see("the edited input does not fit cmd_run", retries=R)
    [still] = await engine().pending(run_id)
    assert next(iter(user.find(marker="always-allow").elements)).enabled is False  # unlocked, yet still off
    box.set_value("echo fixed")
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    assert (await engine().get_run(run_id)).outputs["said"].strip() == "fixed"
    assert still.status == "pending"


def test_the_history_says_which_rule_approved_and_what_was_edited():
    from gui.core.asks.interactions import ApprovalResponse, InteractionRecord, ResolvedResult
    from gui.wording.requests import outcome

    request = shell("h-1")
    approved = ResolvedResult(interaction_id="h-1", response=ApprovalResponse(decision="approved"))
    auto = InteractionRecord(request=request, status="resolved", auto=True, rule_id="r1",
                             rule_text="commands that start with `git status`", resolved_at=1, result=approved)
    assert outcome(auto).details == "Approved automatically: by the rule: commands that start with `git status`"
    edited = auto.model_copy(update={"auto": False, "result": ResolvedResult(interaction_id="h-1", response=(
        ApprovalResponse(decision="approved", edited_input={"command": "echo edited"})))})
    assert outcome(edited).details == "Changed by you: echo edited"  # what was asked is not known: the edit
    with_input = request.model_copy(update={"tool_input": {"command": "rm -rf build/"}})
    asked = edited.model_copy(update={"request": with_input})
    assert outcome(asked).details == "Changed by you: rm -rf build/ → echo edited"
    moved = asked.model_copy(update={"result": ResolvedResult(interaction_id="h-1", response=ApprovalResponse(
        decision="approved", edited_input={"command": "rm -rf build/", "cwd": "/tmp/elsewhere"}))})
    assert outcome(moved).details == "Changed by you: Folder: nothing → /tmp/elsewhere"


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


async def test_after_allowing_a_prefix_a_request_that_appears_meanwhile_is_opened_not_called_nothing(user: User):
    """The run's next step asks while the answer to its first is still being shown: the page must follow
    the list it shows (it said "Nothing else is waiting for you" beside a listed request)."""
    groups = [{"name": f"two-steps-{i}", "in": {}, "out": {}, "tools": tools({"tool": "cmd_run",
                                                                              "args": {"command": command}})}
              for i, command in enumerate(("echo hello there", "echo second step"))]
    await engine().create({"name": "two-steps", "groups": groups})
    await user.open("/inbox")
    created = expect("interaction.created")
    run_id = (await engine().start("two-steps")).run_id
    await wait(created)
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    user.find(marker="scope-choice").elements.pop().set_value("prefix")
    second = expect("interaction.created")
    column = user.find(marker="pending-column")
    column.trigger("mouseenter")  # the dialog closes with the pointer over the list
    user.find(marker="scope-confirm").click()
    asked = (await wait(second)).data["interaction_id"]
    await user.should_see("Now allowed without asking: commands that start with `echo hello`", retries=R)
    await user.should_see(marker="new-pill", retries=R)
    await user.should_see("Your answer was sent. 1 other request is waiting for you.", retries=R)
    await user.should_not_see("Nothing else is waiting for you")  # the count says 1: so must the words
    await user.should_see(marker="open-next")
    column.trigger("mouseleave")
    await user.should_see(marker=f"inbox-row-{asked}", retries=R)
    await user.should_see("echo second step", retries=R)
    await user.should_see(marker="approve", retries=R)  # the listed request is opened
    await user.should_not_see("Nothing else is waiting for you")
    [waiting] = await engine().pending(run_id)
    assert waiting.interaction_id == asked


async def test_a_tools_input_can_be_changed_and_approve_with_your_changes_runs_it(user: User, tmp_path):
    asked, chosen = tmp_path / "asked.txt", tmp_path / "chosen.txt"
    asked.write_text("the asked file")
    chosen.write_text("the chosen file")
    call = {"tool": "file_read", "args": {"path": str(asked)}, "as": "text"}
    await engine().create({"name": "read-one", "groups": [{"name": "read-one-g", "in": {}, "out": {"text": "string"},
                                                           "tools": tools(call)}]})
    await user.open("/inbox")
    created = expect("interaction.created")
    run_id = (await engine().start("read-one")).run_id
    await wait(created)
    await user.should_see(marker="edit-input", retries=R)
    assert text_of(user, "approve") == "Approve"
    user.find(marker="edit-input").click()
    user.find(marker="edited-path").elements.pop().set_value(str(chosen))
    await user.should_see("Approve with your changes", retries=R)
    assert "line-through" in classes_of(user, "asked-path") and "line-through" in classes_of(user, "approval-summary")
    assert "line-through" not in classes_of(user, "asked-encoding")  # only what changed
    assert text_of(user, "changed-path") == str(chosen)
    assert next(iter(user.find(marker="always-allow").elements)).enabled is False
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    record = await engine().get_run(run_id)
    assert record.outputs["text"] == "the chosen file"
    assert record.groups[0].tools[0].original_args["path"] == str(asked)
    await user.open(f"/inbox/{record.groups[0].tools[0].interaction_id}")
    await user.should_see(f"Changed by you: File: {asked} → {chosen}", retries=R)


async def test_a_tools_arguments_are_labelled_with_its_own_titles_unit_and_all(user: User):
    call = {"tool": "http_get", "args": {"url": "http://127.0.0.1:9/status", "timeout": 30}, "as": "page"}
    await engine().create({"name": "fetch-one", "groups": [{"name": "fetch-one-g", "in": {}, "out": {"page": "object"},
                                                            "tools": tools(call)}]})
    await user.open("/inbox")
    created = expect("interaction.created")
    await engine().start("fetch-one")
    await wait(created)
    await user.should_see(marker="tool-input", retries=R)
    with user.scope(marker="tool-input"):
        await user.should_see("Time limit (seconds)")  # the tool's own words: the unit is said
        await user.should_see("Web address")
    await user.should_see("Time limit (seconds): 30", retries=R)  # the list's one line too
    await user.should_not_see("Time limit: 30")


async def test_a_step_whose_input_runs_as_code_is_offered_only_the_tool_wide_rule_and_says_why(user: User):
    doc = {"name": "as-code", "groups": [{"name": "as-code-g", "in": {"script": "string"}, "out": {},
                                          "tools": tools({"tool": "cmd_run",
                                                          "args": {"command": 'sh -c "$args.script"'}})}]}
    await engine().create(doc)
    created = expect("interaction.created")
    await engine().start("as-code", {"script": "uptime"})
    event = await wait(created)
    await user.open(f"/inbox/{event.data['interaction_id']}")
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-runs-as-code", retries=R)
    [radio] = user.find(marker="scope-choice").elements
    assert list(radio.options) == ["tool"]  # no rule for this step: the next run may bring any code
    user.find(marker="scope-confirm").click()
    await user.should_see("Now always allowed: cmd_run", retries=R)
