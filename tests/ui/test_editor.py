"""The sequence editor, driven with NiceGUI's simulated user as a person would: clicks and typing.

Each validation error the editor can produce is made through the editor and must appear on the
field it concerns (found by its marker inside its group card and tool row), never only in a
summary. Nothing sleeps: the page is awaited with `should_see(retries=…)`.
"""

from __future__ import annotations

import json
import re

import pytest
from nicegui.testing import User
from support.editor import (
    R,
    add_tool,
    choose,
    element,
    error_of,
    find,
    new_editor,
    one_group,
    save,
    set_value,
    write_tools_text,
)
from support.ui import app_ctx
from support.waiting import wait_until

from gui.core.sequences.export import to_document
from gui.core.sequences.help import EXAMPLE
from gui.core.sequences.validator import parse_sequence
from gui.ui.editor import storage


async def test_building_the_help_example_by_clicking_stores_the_same_tree(user: User) -> None:
    await new_editor(user)
    user.find(marker="seq-name").type("check-three-nodes")
    user.find(marker="seq-description").type("Fetch the status of a node, dig deeper if needed")
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("fetch-one-node")
    find(user, "group-1", "group-description").type("Uptime and date of one node")
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("summary")
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-2", "slot-name").type("load")
    await add_tool(user, "group-1", "cmd_run")
    find(user, "group-1", "tool-1", "arg-command-value").type("uptime")
    choose(user, ("group-1", "tool-1", "save-to"), "summary · text")
    await add_tool(user, "group-1", "cmd_run")
    find(user, "group-1", "tool-2", "arg-command-value").type("date")
    choose(user, ("group-1", "tool-2", "save-to"), "load · text")

    user.find(marker="add-group").click()
    find(user, "group-2", "group-name").type("dig-deeper")
    find(user, "group-2", "add-input").click()
    find(user, "group-2", "in-1", "slot-name").type("host")
    find(user, "group-2", "add-output").click()
    find(user, "group-2", "out-1", "slot-name").type("detail")
    find(user, "group-2", "add-rule").click()  # the only input, host, is chosen already
    choose(user, ("group-2", "cond-1", "cond-op"), "is not")
    await add_tool(user, "group-2", "echo")
    find(user, "group-2", "tool-1", "arg-value-value").type("checked $args.host")
    choose(user, ("group-2", "tool-1", "save-to"), "detail · text")

    await save(user)
    await user.should_see("Saved 'check-three-nodes'", retries=R)
    stored = await app_ctx().engine.get("check-three-nodes")
    assert stored is not None and stored.identity  # a saved sequence has its identity (rules name it)
    assert stored.model_copy(update={"identity": None}) == parse_sequence(EXAMPLE)


async def test_blank_sequence_name_is_shown_on_the_name_field(user: User) -> None:
    await one_group(user)
    set_value(user, ("seq-name",), "")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "blank" in error_of(user, "seq-name")
    assert await app_ctx().engine.list_sequences() == []


async def test_duplicate_group_name_is_shown_on_the_second_group_name(user: User) -> None:
    await one_group(user, "same")
    user.find(marker="add-group").click()
    find(user, "group-2", "group-name").type("same")
    await add_tool(user, "group-2", "echo")
    find(user, "group-2", "tool-1", "arg-value-value").type("x")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "already used by group 1" in error_of(user, "group-2", "group-name")
    assert error_of(user, "group-1", "group-name") == ""


async def test_slot_not_declared_written_in_the_text_view_is_shown_on_save_result_to(user: User) -> None:
    await one_group(user)
    write_tools_text(user, '{"tool":"echo","args":{"value":"hi"},"as":"nope"} ;')
    await user.should_see(marker="save-to", retries=R)
    assert "nope (not an output of this group)" in str(element(user, "group-1", "tool-1", "save-to").props)
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "'nope' is not an output of this group" in error_of(user, "group-1", "tool-1", "save-to")


async def test_slot_written_twice_is_shown_on_the_second_tools_save_result_to(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("result")
    await add_tool(user, "group-1", "echo")
    find(user, "group-1", "tool-2", "arg-value-value").type("again")
    choose(user, ("group-1", "tool-1", "save-to"), "result · text")
    choose(user, ("group-1", "tool-2", "save-to"), "result · text")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "written by tools 1, 2" in error_of(user, "group-1", "tool-2", "save-to")
    assert error_of(user, "group-1", "tool-1", "save-to") == ""


async def test_time_limit_of_zero_is_shown_on_the_time_limit_field(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "group-timeout").type("0")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "positive duration" in error_of(user, "group-1", "group-timeout")


async def test_condition_reading_a_removed_input_is_shown_at_the_condition(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("mode")
    find(user, "group-1", "add-rule").click()
    find(user, "group-1", "cond-1", "cond-value").type("fast")
    find(user, "group-1", "in-1", "slot-remove").click()
    assert "mode (not an input of this group)" in str(element(user, "group-1", "cond-1", "cond-arg").props)
    await save(user)
    await user.should_see("1 problem", retries=R)
    with user.scope(marker="group-1"), user.scope(marker="condition"):
        await user.should_see("reads 'mode', which is not an input of this group", retries=R)


@pytest.mark.parametrize("typed", ['host != ""', '⤷host != ""'])
async def test_a_condition_problem_names_the_notation_its_box_accepts(user: User, typed: str) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    find(user, "group-1", "cond-to-text").click()
    await user.should_see(marker="group-when", retries=R)
    set_value(user, ("group-1", "group-when"), typed)
    await save(user)
    await user.should_see("1 problem", retries=R)
    message = error_of(user, "group-1", "group-when")
    assert "⤷" not in message.replace(typed.split()[0], ""), message  # names no notation the box refuses
    named = re.search(r"\$args\.\w+", message)
    assert named is not None and named.group() == "$args.host", message
    set_value(user, ("group-1", "group-when"), f'{named.group()} != ""')  # what the message says, in the same box
    await save(user)
    saved = await wait_until(lambda: app_ctx().engine.get("s1"), "the sequence saved: the box took it")
    assert saved.groups[0].when == '$args.host != ""'
    assert error_of(user, "group-1", "group-when") == ""


async def test_one_name_with_two_types_is_shown_on_the_later_input(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    user.find(marker="add-group").click()
    find(user, "group-2", "group-name").type("g2")
    find(user, "group-2", "add-input").click()
    find(user, "group-2", "in-1", "slot-name").type("host")
    choose(user, ("group-2", "in-1", "slot-type"), "number")
    await add_tool(user, "group-2", "echo")
    find(user, "group-2", "tool-1", "arg-value-value").type("x")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "'host' is number here but text" in error_of(user, "group-2", "in-1", "slot-name")


async def test_group_without_tools_is_shown_under_its_tools(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "tool-1", "tool-remove").click()
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert element(user, "group-1", "tools-error").text.startswith("Add at least one tool")


async def test_missing_required_argument_is_shown_on_that_argument_in_plain_words(user: User) -> None:
    await one_group(user)
    await add_tool(user, "group-1", "cmd_run")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert error_of(user, "group-1", "tool-2", "arg-command-value") == "Enter a value for Command"


async def test_problem_badge_counts_the_errors_of_each_group(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "group-timeout").type("0")
    set_value(user, ("group-1", "group-name"), "")
    await save(user)
    await user.should_see("2 problems", retries=R)
    assert element(user, "group-1", "group-problems").text == "2 problems"
    assert len(find(user, "problem-item").elements) == 2


async def test_fixing_the_field_clears_its_error_without_saving_again(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "group-timeout").type("0")
    await save(user)
    await user.should_see("1 problem", retries=R)
    set_value(user, ("group-1", "group-timeout"), 5)
    await user.should_not_see(marker="problems", retries=R)
    assert error_of(user, "group-1", "group-timeout") == ""


async def test_binding_an_argument_to_an_input_writes_an_args_reference(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("who")
    set_value(user, ("group-1", "tool-1", "arg-value-mode"), "input")
    choose(user, ("group-1", "tool-1", "arg-value-input"), "⤷ Input: who · text")
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    stored = await app_ctx().engine.get("s1")
    assert stored is not None and stored.groups[0].tools[0].args == {"value": "$args.who"}


async def test_text_view_round_trip_keeps_the_sequence(user: User) -> None:
    engine = app_ctx().engine
    saved, _ = await engine.create(json.loads(EXAMPLE))
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-1", retries=R)
    user.find(marker="view-text").click()
    editor = element(user, "text-view")
    assert json.loads(editor.value) == to_document(saved)
    doc = json.loads(editor.value)
    doc["description"] = "Edited as text"
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    user.find(marker="view-visual").click()
    assert element(user, "seq-description").value == "Edited as text"
    await save(user)
    await user.should_see("Saved 'check-three-nodes'", retries=R)
    stored = await engine.get("check-three-nodes")
    assert stored is not None and stored.description == "Edited as text"
    assert stored.groups == saved.groups


async def test_text_that_does_not_parse_stays_in_the_text_view_and_says_why(user: User) -> None:
    await one_group(user)
    user.find(marker="view-text").click()
    set_value(user, ("text-view",), '{"name": "s1", "groups": [ ')
    user.find(marker="view-visual").click()
    await user.should_see("not valid JSON", retries=R)
    assert element(user, "text-view").value == '{"name": "s1", "groups": [ '


async def test_saving_in_the_text_view_marks_the_error_at_its_line(user: User) -> None:
    await one_group(user)
    user.find(marker="view-text").click()
    editor = element(user, "text-view")
    doc = json.loads(editor.value)
    doc["groups"][0]["timeout"] = "soon"
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    await save(user)
    line = next(i for i, text in enumerate(editor.value.splitlines(), 1) if '"timeout": "soon"' in text)
    await user.should_see(f"Line {line}, column 18", retries=R)
    assert any(d["kind"] == "mark" for d in editor.decorations)
    assert await app_ctx().engine.list_sequences() == []


async def test_unsaved_work_is_kept_when_leaving_the_editor(user: User) -> None:
    await one_group(user)
    await user.open("/")
    await user.should_see(marker="unsaved-new", retries=R)
    await user.open("/sequences/new")
    await user.should_see(marker="restored", retries=R)
    assert element(user, "seq-name").value == "s1"
    assert element(user, "group-1", "tool-1", "arg-value-value").value == "hi"
    storage.drop("new")


async def test_save_then_run_opens_the_run_panel_for_the_sequence(user: User) -> None:
    await one_group(user)
    assert not element(user, "run").enabled
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    assert element(user, "run").enabled
    user.find(marker="run").click()
    await user.should_see("Run a sequence", retries=R)


async def test_the_help_is_one_click_away_and_starts_from_the_example(user: User) -> None:
    await new_editor(user)
    user.find(marker="help").click()
    await user.should_see("Groups run one after another", retries=R)
    user.find(marker="insert-example").click()
    await user.should_see(marker="group-2", retries=R)
    assert element(user, "seq-name").value == "check-three-nodes"
    await save(user)
    await user.should_see("Saved 'check-three-nodes'", retries=R)


async def test_starting_from_the_example_over_a_started_sequence_asks_first(user: User) -> None:
    await one_group(user, "mine")
    user.find(marker="help").click()
    user.find(marker="insert-example").click()
    await user.should_see("Replace what you have built with the example?", retries=R)
    user.find(marker="confirm-example").click()
    await user.should_see(marker="group-2", retries=R)
    assert element(user, "seq-name").value == "check-three-nodes"
    assert element(user, "group-1", "group-name").value != "mine"


@pytest.mark.parametrize("action", ["group-move-down", "group-duplicate", "group-delete"])
async def test_group_menu_actions_change_the_order_and_count(user: User, action: str) -> None:
    await one_group(user, "first")
    user.find(marker="add-group").click()
    find(user, "group-2", "group-name").type("second")
    find(user, "group-1", action).click()
    if action == "group-move-down":
        assert element(user, "group-1", "group-title").text == "second"
    elif action == "group-duplicate":
        assert element(user, "group-2", "group-title").text == "first-2"
    else:
        assert element(user, "group-1", "group-title").text == "second"
        user.find(marker="undo").click()
        assert element(user, "group-1", "group-title").text == "first"


def test_an_error_inside_the_tools_text_is_marked_at_its_character() -> None:
    from gui.core.sequences import line_col, locate
    from gui.core.sequences.validator import check_text

    doc = json.loads(EXAMPLE)
    doc["groups"][0]["tools"] = doc["groups"][0]["tools"].replace("uptime", "uptime $args.nobody")
    text = json.dumps(doc, indent=2)
    problem = next(p for p in check_text(text).errors if p.code == "undeclared-arg")
    start, end = locate(text, problem)
    assert text[start:end] == "$args.nobody"
    line, _ = line_col(text, start)
    assert '"tools":' in text.splitlines()[line - 1]


async def test_unknown_tool_is_a_note_on_its_row_and_does_not_block_saving(user: User) -> None:
    await one_group(user)
    write_tools_text(user, '{"tool":"calendar.add_event","args":{"title":"x"}} ;')
    await user.should_see("This tool is not available now", retries=R)
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    with user.scope(marker="group-1"), user.scope(marker="tool-1"):
        await user.should_see("Note: No tool named 'calendar.add_event' is available now", retries=R)
        # the control that decides is named in its label's words, not the format's key
        await user.should_see("the group's “If a tool is not available” decides at run time", retries=R)
        await user.should_not_see('"missing" rule')


async def test_a_misspelt_tool_tells_the_person_where_the_apps_tools_are_not_an_agents_command(user: User) -> None:
    await one_group(user)
    write_tools_text(user, '{"tool":"ecoh","args":{"value":"x"}} ;')
    await save(user)
    with user.scope(marker="group-1"), user.scope(marker="tool-1"):
        await user.should_see("did you mean 'echo'?", retries=R)
        await user.should_see("the group's “If a tool is not available” decides at run time", retries=R)
        await user.should_see("“Add a tool” lists the tools you can use now", retries=R)
        await user.should_see("Settings › MCP servers", retries=R)
        await user.should_not_see("seq_tools")


async def test_renaming_a_saved_sequence_replaces_it_and_keeps_its_groups(user: User) -> None:
    engine = app_ctx().engine
    await engine.create(json.loads(EXAMPLE))
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-1", retries=R)
    set_value(user, ("seq-name",), "check-one-node")
    await save(user)
    await user.should_see("Saved 'check-one-node'", retries=R)
    assert await engine.get("check-three-nodes") is None
    renamed = await engine.get("check-one-node")
    assert renamed is not None and [g.name for g in renamed.groups] == ["fetch-one-node", "dig-deeper"]


async def test_a_new_sequence_cannot_take_the_name_of_a_saved_one(user: User) -> None:
    engine = app_ctx().engine
    await engine.create(json.loads(EXAMPLE))
    await one_group(user)
    set_value(user, ("seq-name",), "check-three-nodes")
    await save(user)
    await user.should_see("1 problem", retries=R)
    assert "already saved" in error_of(user, "seq-name")
    stored = await engine.get("check-three-nodes")
    assert stored is not None and stored.identity  # a saved sequence has its identity (rules name it)
    assert stored.model_copy(update={"identity": None}) == parse_sequence(EXAMPLE)


async def test_save_result_to_can_declare_a_new_output_of_the_results_own_type(user: User) -> None:
    await one_group(user, "asks")  # its first tool is an echo: ask_user comes second
    await add_tool(user, "group-1", "ask_user")
    choose(user, ("group-1", "tool-2", "save-to"), "A new output for this result (group of values)")
    await user.should_see(marker="out-1")
    name = find(user, "group-1", "out-1", "slot-name").elements.pop()
    kind = find(user, "group-1", "out-1", "slot-type").elements.pop()
    assert (name.value, kind.value) == ("answers", "object")
    assert find(user, "group-1", "tool-2", "save-to").elements.pop().value == "answers"
