"""Every word of the sequence editor comes from the catalogue: the editor is drawn in 简体中文 in its
main states (empty; the seed's example; a group holding every kind of built-in tool, opened; the
data picker, the tool palette and the guide open; a kept draft; the Text tab with its problems; a
test of one group; a save refused for the editor's own problems) and its element tree walked, as
tests/ui/test_i18n_screens.py does for the other screens. Any run of Latin letters that is not a
name, a keyword or data named here fails, with the element and its text.

Every part is walked, the problem pill and list too (the validator's messages in the page's
language, `Problem.text`), but the format reference folded in the guide (`help-text`): its prose
is written around the format's keywords and code, and tests/test_i18n_core_messages.py checks it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User
from support.editor import R, add_tool, element, find, set_value
from support.i18n_screens import TEXT_PROPS, untranslated_runs
from support.ui import app_ctx, engine_open  # noqa: F401 - the autouse fixture: the engine is open

from gui.core.sequences.help import EXAMPLE, SEED_EXAMPLE
from gui.i18n import DATA
from gui.ui.editor.text_view import TextView

# The editor's data in the states below: names of sequences, groups, inputs and outputs, tools and
# their arguments' values, the example's words (its drawing in the guide shows them as they are written).
EDITOR_DATA = {
    "check-three-nodes", "fetch-one-node", "dig-deeper", "host", "summary", "load", "detail", "cmd_run",
    "uptime", "date", "echo", "checked", "all-tools", "every-tool", "second", "ask_user", "file_read",
    "file_write", "http_get", "sleep", "seq_call", "mcp_resource", "note", "who", "greeting", "n", "flag",
    "answers", "env", "Which", "environment", "Production", "prod", "stage", "Staging", "hi", "offline",
    "gone", "new-one", "shell", "tested", "ls", "tmp", "x", "txt", "docs", "greet", "latin", "utf", "Ada", "not",
    "s1", "output", "report", "echo_result", "Accept", "text", "json",
}
# Keys, keywords and names that stay as they are in Chinese too (Ctrl+S, true/false, UTF-8, AI, ls -l).
KEYWORDS = {"Ctrl", "S", "AI", "true", "false", "UTF", "ls", "l", "latin", "utf", "Accept", "Authorization",
            "text", "single_select", "multi_select", "git"}
SKIP = {"help-text"}  # the format reference: prose around keywords and code (tests/test_i18n_core_messages.py)



def _texts(el: ui.element) -> Iterator[tuple[str, str]]:
    text = None if isinstance(el, TextView) else getattr(el, "text", None)  # its text: the document, data
    if isinstance(text, str) and text:
        yield "text", text
    for name in TEXT_PROPS:
        value = el.props.get(name)
        if isinstance(value, str) and value:
            yield name, value
    options = getattr(el, "options", None) if isinstance(el, ui.select | ui.toggle) else None
    labels: Iterable[Any] = options.values() if isinstance(options, dict) else options or []
    for option in labels:
        label = option.get("label") if isinstance(option, dict) else option
        if isinstance(label, str):
            yield "option", label


def editor_problems(user: User, allowed: Iterable[str] = (), skip: set[str] = SKIP) -> list[str]:
    """One line per untranslated word under the page (the parts in `skip` and data elements aside)."""
    ok = EDITOR_DATA | KEYWORDS | set(allowed)
    root = user.current_layout
    skipped: set[int] = set()
    for el in [root, *root.descendants()]:
        if skip & set(el._markers):
            skipped |= {el.id, *(d.id for d in el.descendants())}
    problems = []
    for el in [root, *root.descendants()]:
        if el.id in skipped or DATA in el.classes:
            continue
        for where, text in _texts(el):
            runs = untranslated_runs(text, ok)
            if runs:
                problems.append(f"{type(el).__name__}[{' '.join(el._markers)}] {where}={text!r}: {runs}")
    problems += [f"notification {m!r}: {r}" for m in user.notify.messages if (r := untranslated_runs(m, ok))]
    return problems


def assert_translated(user: User, what: str, allowed: Iterable[str] = (), skip: set[str] = SKIP) -> None:
    problems = editor_problems(user, allowed, skip)
    if problems:
        pytest.fail(f"{what}: words on screen without a translation:\n" + "\n".join(problems), pytrace=False)


def _calls(*calls: dict[str, Any]) -> str:
    return " ".join(json.dumps(c, ensure_ascii=False) + " ;" for c in calls)


EVERY_TOOL = {
    "name": "all-tools", "description": "每种工具各一个",
    "groups": [
        {"name": "every-tool", "in": {"host": "string", "n": "number", "flag": "boolean"},
         "out": {"output": "string", "answers": "object"}, "when": "$args.host != \"\" and $args.n > 3",
         "parallel": False, "missing": "skip", "timeout": "30s", "on_error": "retry",
         "tools": _calls(
             {"tool": "cmd_run", "args": {"command": "ls $args.host", "cwd": "/tmp", "timeout": 5}, "as": "output"},
             {"tool": "echo", "args": {"value": "$args.host"}},
             {"tool": "file_read", "args": {"path": "/tmp/x.txt", "encoding": "latin-1"}},
             {"tool": "file_write", "args": {"path": "/tmp/x.txt", "content": "hi", "append": True}},
             {"tool": "http_get", "args": {"url": "https://example.org", "headers": {"Accept": "text/json"}}},
             {"tool": "sleep", "args": {"seconds": 0.1}},
             {"tool": "ask_user", "args": {"title": "Which environment", "questions": [
                 {"prompt": "Which environment", "id": "env", "type": "single_select",
                  "options": [{"label": "Production", "value": "prod"}, {"label": "Staging", "value": "stage"}]}]},
              "as": "answers"},
             {"tool": "seq_call", "args": {"name": "fetch-one-node", "args": {"host": "$args.host"}}},
             {"tool": "mcp_resource", "args": {"server": "docs", "uri": "note://x"}},
             {"tool": "offline.gone", "args": {"x": 1}})},
        {"name": "second", "in": {"n": "number"}, "out": {}, "when": "not ($args.n > 3)",
         "tools": _calls({"tool": "echo", "args": {"value": [1, 2]}})},
    ]}


async def test_the_empty_editor_its_palette_and_its_guide_are_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/new")
    await user.should_see("添加第一个组", retries=R)
    assert_translated(user, "/sequences/new, empty")
    user.find(marker="help").click()
    await user.should_see("编辑器怎么用", retries=R)
    assert_translated(user, "/sequences/new, the guide open")
    user.find(marker="add-first-group").click()
    await user.should_see(marker="group-1", retries=R)
    assert_translated(user, "/sequences/new, a new group (opened)")
    find(user, "group-1", "add-tool").click()
    await user.should_see(marker="palette-cmd_run", retries=R)
    await user.should_see("运行前会先问你", retries=R)
    assert_translated(user, "/sequences/new, the tool palette")
    user.find(marker="palette-search").type("zzz-nothing")
    await user.should_see("没有匹配的工具", retries=R)
    assert_translated(user, "/sequences/new, the palette finding nothing")


async def test_the_seed_example_and_the_guides_example_are_in_chinese(user: User, chinese: None) -> None:
    await app_ctx().engine.create(json.loads(SEED_EXAMPLE))
    await user.open("/sequences/巡检三节点/edit")
    await user.should_see(marker="group-2", retries=R)
    await user.should_see("运行条件：host 不为 空", retries=R)
    assert_translated(user, "the seed's example, opened")
    await user.open("/sequences/new?example=1")  # the guide's example (English names), its names taken
    await user.should_see(marker="group-2", retries=R)
    assert_translated(user, "a new sequence from the guide's example")
    user.find(marker="help").click()
    user.find(marker="insert-example").click()  # something is built already: the question
    await user.should_see("用示例替换你已经搭建的内容吗？", retries=R)
    assert_translated(user, "the question before replacing with the example")


async def test_a_group_with_every_kind_of_tool_is_in_chinese(user: User, chinese: None) -> None:
    engine = app_ctx().engine
    await engine.create(json.loads(EXAMPLE))
    await engine.create(EVERY_TOOL)
    await user.open("/sequences/all-tools/edit")
    await user.should_see(marker="group-2", retries=R)
    await user.should_see("这个工具现在不可用", retries=R)
    assert_translated(user, "every kind of tool, opened")

    find(user, "group-1", "tool-1", "arg-command-insert").click()  # the menu of inputs to put in a command
    await user.should_see(marker="insert-host", retries=R)
    assert_translated(user, "the menu of inputs to put in a text")
    set_value(user, ("group-1", "tool-1", "arg-cwd-mode"), "input")  # the data picker
    await user.should_see(marker="arg-cwd-input", retries=R)
    assert_translated(user, "an argument bound to an input (the data picker)")
    set_value(user, ("group-1", "tool-5", "arg-headers-mode"), "input")  # no input is a group of values
    await user.should_see(marker="arg-headers-input", retries=R)
    assert "一组值" in element(user, "group-1", "tool-5", "arg-headers-input").props["hint"]
    assert_translated(user, "the data picker with nothing that fits")

    find(user, "group-1", "tool-7", "list-questions-add").click()  # a second question, empty
    find(user, "group-1", "tool-7", "list-questions-json").click()  # and the list as JSON
    await user.should_see(marker="arg-questions-form", retries=R)
    assert_translated(user, "a list of questions, as JSON")
    find(user, "group-1", "cond-to-text").click()  # the condition written as text
    await user.should_see(marker="group-when", retries=R)
    assert_translated(user, "a condition written as text", {"and"})  # the condition format's own word
    find(user, "group-1", "group-menu").click()
    find(user, "group-1", "group-delete").click()
    await user.should_see(marker="undo-bar", retries=R)
    assert_translated(user, "a group removed (with Undo)")


async def test_the_data_picker_offers_what_earlier_groups_give_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/new?example=1")
    await user.should_see(marker="group-2", retries=R)
    set_value(user, ("group-2", "tool-1", "arg-value-mode"), "input")
    picker = element(user, "group-2", "tool-1", "arg-value-input")
    assert "第 1 组 › summary · 文本" in picker.options.values(), picker.options
    assert_translated(user, "the data picker: inputs and what group 1 gives back")
    with user.client:
        picker.value = "__given__:summary"  # what group 1 gives back: declared as an input here
    await user.should_see("“summary”现在是这个组的输入", retries=R)
    assert_translated(user, "an earlier group's output picked, declared as an input")


async def test_a_kept_draft_and_a_refused_save_are_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/new")
    await user.should_see(marker="add-first-group", retries=R)
    user.find(marker="seq-name").type("new-one")
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("g1")
    find(user, "group-1", "add-input").click()  # an input without a name: the editor's own problem
    await add_tool(user, "group-1", "echo")
    find(user, "group-1", "tool-1", "arg-value-value").type("hi")
    find(user, "group-1", "add-rule").click()  # a rule on the only input (it has no name yet)
    assert_translated(user, "a new sequence being built")
    user.find(marker="save").click()
    await user.should_see("请给这个输入起个名字", retries=R)
    await user.should_see(marker="problem-list", retries=R)
    assert_translated(user, "a save refused for a nameless input (the list: where each problem is)",
                      {"g"})  # g1, the group's name
    await user.open("/sequences/new")  # the draft is kept
    await user.should_see(marker="restored", retries=R)
    await user.should_see("你之前未保存的修改已经恢复。", retries=R)
    assert_translated(user, "the kept draft, back")

    find(user, "group-1", "in-1", "slot-name").type("who")
    find(user, "group-1", "cond-remove").click()
    user.find(marker="save").click()
    await user.should_see("已保存“new-one”", retries=R)
    assert_translated(user, "saved")
    user.find(marker="seq-description").type("改一下")
    await user.should_see("请先保存修改", retries=R)
    assert_translated(user, "a saved sequence with changes (Run says why it waits)")


async def test_the_text_tab_is_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/new?example=1")
    await user.should_see(marker="group-2", retries=R)
    user.find(marker="view-text").click()
    await user.should_see(marker="text-view", retries=R)
    assert_translated(user, "the Text tab")
    user.find(marker="save").click()  # checked as saved from the text: nothing wrong
    await user.should_see("已保存", retries=R)
    await user.should_see("没有发现问题", retries=R)
    assert_translated(user, "the Text tab, saved, no problems")
    set_value(user, ("text-view",), '{"name": "x", "groups": "none"}')
    user.find(marker="view-visual").click()  # the visual view cannot show it: why, in words
    await user.should_see(marker="text-why", retries=R)
    assert_translated(user, "the Text tab: why the visual editor cannot show the text", {"groups", "none"})


async def test_testing_a_group_is_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/new")
    await user.should_see(marker="add-first-group", retries=R)
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type("shell")
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("who")
    await add_tool(user, "group-1", "cmd_run")
    find(user, "group-1", "tool-1", "arg-command-value").type("echo tested")
    await add_tool(user, "group-1", "echo")
    find(user, "group-1", "tool-2", "arg-value-value").type("hi")
    find(user, "group-1", "group-test-open").click()
    await user.should_see(marker="test-run", retries=R)
    assert_translated(user, "Test this group, before it runs")
    find(user, "group-test", "arg-who").type("Ada")
    find(user, "group-test", "test-run").click()
    await user.should_see("等你处理", retries=100)
    await user.should_see(marker="test-inbox", retries=R)
    assert_translated(user, "Test this group, a command waiting for approval")
    (pending,) = await app_ctx().engine.pending()
    from gui.core.asks.interactions import ApprovalResponse

    await app_ctx().engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
    await user.should_see("测试成功", retries=100)
    assert_translated(user, "Test this group, succeeded")


async def test_a_sequence_that_is_not_there_is_said_in_chinese(user: User, chinese: None) -> None:
    await user.open("/sequences/nope/edit")
    await user.should_see("没有名为“nope”的已保存序列。", retries=R)
    assert_translated(user, "an editor page for no saved sequence", {"nope"})
