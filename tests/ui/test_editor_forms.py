"""Editor forms that spare a person from writing JSON or `$args.` by hand, and the words a group card
and the tool palette use. Driven with NiceGUI's simulated user; pure helpers are tested directly.
"""

from __future__ import annotations

from typing import Any

import pytest
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction
from support.editor import add_tool, element, find, new_editor
from support.ui import app_ctx

from gui.core.tools import ToolInfo
from gui.ui.editor.draft import ConditionDraft, CondRow, GroupDraft, SequenceDraft, SlotRow
from gui.ui.editor.group_card import when_words
from gui.ui.editor.groups_view import input_sources
from gui.ui.editor.palette import friendly_title, source_words
from gui.ui.editor.tool_row import result_note

R = 50


def choose_option(user: User, path: tuple[str, ...], label: str) -> None:
    interaction = find(user, *path)
    interaction.click()
    UserInteraction(user, interaction.elements, label).click()


async def test_ask_user_questions_are_built_with_a_form_not_json(user: User):
    await new_editor(user)
    user.find(marker="seq-name").type("asks")
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("asks-g")
    await add_tool(user, "group-1", "ask_user")
    find(user, "group-1", "tool-1", "arg-title-value").type("Before we clean up")
    find(user, "group-1", "tool-1", "list-questions-add").click()
    await user.should_see(marker="questions-1", retries=R)
    find(user, "questions-1", "questions-id").type("env")
    find(user, "questions-1", "questions-prompt").type("Which machine?")
    choose_option(user, ("questions-1", "questions-type"), "single select")
    find(user, "questions-1", "list-options-add").click()
    find(user, "questions-1", "options-1", "options-value").type("dev")
    find(user, "questions-1", "options-1", "options-label").type("Development")
    find(user, "group-1", "tool-1", "list-questions-add").click()
    find(user, "questions-2", "questions-id").type("why")
    find(user, "questions-2", "questions-prompt").type("Why now?")
    user.find(marker="save").click()
    await user.should_see("Saved 'asks'", retries=R)

    stored = await app_ctx().engine.get("asks")
    (call,) = stored.groups[0].tools
    assert call.args == {"title": "Before we clean up", "questions": [
        {"id": "env", "prompt": "Which machine?", "type": "single_select",
         "options": [{"value": "dev", "label": "Development"}]},
        {"id": "why", "prompt": "Why now?"}]}

    await user.open("/sequences/asks/edit")  # opened again, the same form shows what was saved
    await user.should_see(marker="questions-2", retries=R)
    assert element(user, "questions-1", "options-1", "options-label").value == "Development"


async def test_choices_written_as_plain_labels_show_in_the_form_and_survive_adding_one(user: User):
    engine = app_ctx().engine
    await engine.create({"name": "labels", "groups": [{"name": "labels-g", "in": {}, "out": {}, "tools": (
        '{"tool": "ask_user", "args": {"title": "Pick", "questions": [{"id": "env", "prompt": "Where?", '
        '"type": "single_select", "options": ["dev", "prod"]}]}} ;')}]})
    await user.open("/sequences/labels/edit")
    await user.should_see(marker="questions-1", retries=R)
    assert element(user, "questions-1", "options-1", "options-label").value == "dev"
    assert element(user, "questions-1", "options-2", "options-label").value == "prod"
    find(user, "questions-1", "list-options-add").click()
    find(user, "questions-1", "options-3", "options-label").type("test")
    user.find(marker="save").click()
    await user.should_see("Saved 'labels'", retries=R)
    (call,) = (await engine.get("labels")).groups[0].tools
    assert call.args["questions"][0]["options"] == [{"label": "dev"}, {"label": "prod"}, {"label": "test"}]


async def test_a_list_can_still_be_written_as_json_and_brought_back_to_the_form(user: User):
    await new_editor(user)
    user.find(marker="add-first-group").click()
    await add_tool(user, "group-1", "ask_user")
    find(user, "group-1", "tool-1", "list-questions-json").click()
    await user.should_see(marker="arg-questions-value", retries=R)
    box = element(user, "group-1", "tool-1", "arg-questions-value")
    with user.client:
        box.value = '[{"id": "a", "prompt": "Why?"}]'
    find(user, "group-1", "tool-1", "arg-questions-form").click()
    await user.should_see(marker="questions-1", retries=R)
    assert element(user, "questions-1", "questions-prompt").value == "Why?"


async def test_the_insert_button_puts_an_input_into_a_text_argument(user: User):
    await new_editor(user)
    user.find(marker="add-first-group").click()
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("folder")
    await add_tool(user, "group-1", "cmd_run")
    find(user, "group-1", "tool-1", "arg-command-value").type("ls -la")
    find(user, "group-1", "tool-1", "arg-command-insert").click()
    await user.should_see(marker="insert-folder", retries=R)
    user.find(marker="insert-folder").click()
    assert element(user, "group-1", "tool-1", "arg-command-value").value == "ls -la ⤷folder"  # never `$args.`
    await user.should_see("⤷ folder", retries=R)  # the chip under the field


async def test_a_group_card_says_when_it_runs_and_where_its_inputs_come_from(user: User):
    await new_editor(user)
    user.find(marker="add-first-group").click()
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("folder")
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("listing")
    find(user, "group-1", "add-rule").click()
    choose_option(user, ("group-1", "cond-1", "cond-op"), "is not")
    user.find(marker="add-group").click()
    find(user, "group-2", "add-input").click()
    find(user, "group-2", "in-1", "slot-name").type("listing")
    await user.should_see(marker="group-summary", content="Runs if: folder is not empty", retries=R)
    assert "(from you, when you run it)" in element(user, "group-1", "group-flow").text
    await user.should_see(marker="group-flow", content="Needs listing · text (from group 1)", retries=R)


# -- the words, directly ------------------------------------------------------------------------

def test_conditions_read_as_words():
    assert when_words(ConditionDraft()) == "Always runs"
    one = ConditionDraft(rows=[CondRow(arg="folder", op="!=", value="")])
    assert when_words(one) == "Runs if: folder is not empty"
    two = ConditionDraft(rows=[CondRow(arg="n", op=">", value=3), CondRow(arg="ok", op="==", value=True)],
                         joiner="or")
    assert when_words(two) == "Runs if any of these holds: n is more than 3 or ok is yes"
    written = ConditionDraft(mode="text", text='$args.host contains "db"')
    assert when_words(written) == 'Runs if: host contains "db"'


def test_inputs_come_from_the_latest_earlier_group_that_gives_them_or_from_the_person():
    def group(ins: list[str], outs: list[str]) -> GroupDraft:
        return GroupDraft(inputs=[SlotRow(name=n) for n in ins], outputs=[SlotRow(name=n) for n in outs])

    draft = SequenceDraft(groups=[group(["a"], ["b"]), group(["b", "c"], ["b"]), group(["b"], [])])
    assert input_sources(draft) == [{"a": "you, when you run it"},
                                    {"b": "group 1", "c": "you, when you run it"}, {"b": "group 2"}]


def test_a_result_that_will_not_fit_its_output_is_said_before_running():
    assert result_note("time.now", "object", "now", "string") == (
        "time.now gives back a group of values, but the output 'now' is text: change the type of 'now' to "
        "group of values, "
        "or the run will stop at this step.")
    assert result_note("time.now", "object", "now", "object") == ""
    assert result_note("time.now", None, "now", "string") == ""  # the tool does not say: no guess
    assert result_note("time.now", "object", None, None) == ""


def FakeTool(name: str, schema: dict[str, Any], remote_name: str | None = None, server: str | None = None) -> ToolInfo:
    """A tool as the door lists it (`remote_name`: its name on its server, the part after `server.`)."""
    assert remote_name is None or name == f"{server}.{remote_name}"
    return ToolInfo(name=name, title=name, description="", input_schema=schema, asks_first=False, approval="none",
                    concurrency_safe=True, source="mcp" if server else "built-in", server=server)


@pytest.mark.parametrize(("tool", "title"), [
    (FakeTool("cmd_run", {"title": "Run a command"}), "Run a command"),
    (FakeTool("time.get_current_time", {"title": "get_current_timeArguments"}, "get_current_time", "time"), ""),
    (FakeTool("srv.convert", {"title": "ConvertArguments"}, "convert", "srv"), ""),
    (FakeTool("srv.x", {}, "x", "srv"), ""),
])
def test_the_palette_leaves_out_titles_generated_from_the_tool_name(tool: ToolInfo, title: str):
    assert friendly_title(tool) == title


def test_the_palette_says_where_a_tool_comes_from():
    assert source_words(FakeTool("echo", {})) == "built in"
    assert source_words(FakeTool("time.x", {}, "x", "time")) == "from the server time"

