"""The Sequences page (`/`, the home page) in 简体中文, in each of its states: every word on screen
comes from the catalogue. The page is drawn in Chinese and its element tree walked (with
tests/support/i18n_screens.py: labels, buttons, chips, menus, aria-labels, and the notifications it
raised); any run of Latin letters that is not a name on the allow-list fails, naming the element.

Covered: the empty page; a list of sequences (every type word on its chips, a sequence that needs
and gives nothing, one with unsaved changes, the unsaved new sequence's banner); a search that
matches nothing; the delete dialog and its notice; a duplicate's notice; an import that saves, one
over an existing name (the replace dialog), one whose names are taken (the free names dialog), one
that cannot be imported (the problems dialog, the checker's own sentences in the page's language too).
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui
from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User
from support.i18n_screens import screen_problems, untranslated_runs
from support.ui import app_ctx

from gui import i18n
from gui.core.sequences.help import EXAMPLE
from gui.ui.editor import storage

R = 50
# The names the sequences below carry (sequences, groups, inputs, outputs): data, not words.
DATA_WORDS = {"check-three-nodes", "check-three-nodes-2", "fetch-one-node", "fetch-one-node-2", "dig-deeper",
              "dig-deeper-2", "host", "summary", "load", "detail", "typed", "all-kinds", "note", "count", "ok",
              "items", "extra", "quiet", "hush", "draft-one", "nomatch", "imported", "imported-group"}



def assert_translated(user: User, what: str) -> None:
    problems = screen_problems(user.current_layout, DATA_WORDS)
    problems += [f"notification {m!r}" for m in user.notify.messages if untranslated_runs(m, DATA_WORDS)]
    assert not problems, f"{what}: words on screen without a translation:\n" + "\n".join(problems)


def _tools(*calls: dict[str, Any]) -> str:
    return " ".join(json.dumps(c) + " ;" for c in calls)


async def upload(user: User, content: bytes) -> None:
    (element,) = user.find(marker="import-upload").elements
    assert isinstance(element, ui.upload)
    with user.client:
        await element.handle_uploads([SmallFileUpload(name="s.json", content_type="application/json", _data=content)])


async def _sequences() -> None:
    engine = app_ctx().engine
    await engine.create(json.loads(EXAMPLE))
    await engine.create({"name": "all-kinds", "groups": [  # every type a slot can have, in words on its chips
        {"name": "typed", "in": {"note": "string", "count": "number", "ok": "boolean", "items": "array",
                                 "extra": "object"}, "out": {},
         "tools": _tools({"tool": "echo", "args": {"value": "$args.note"}})}]})
    await engine.create({"name": "quiet", "groups": [  # needs nothing, gives nothing
        {"name": "hush", "in": {}, "out": {}, "tools": _tools({"tool": "echo", "args": {"value": "x"}})}]})


async def test_the_empty_sequences_page_is_in_chinese(user: User, chinese: None) -> None:
    await user.open("/")
    await user.should_see("还没有序列", retries=R)
    await user.should_see(marker="empty")
    assert_translated(user, "/ with no sequence")


async def test_the_list_of_sequences_is_in_chinese(user: User, chinese: None) -> None:
    await _sequences()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    with user.client:  # a draft of a new sequence and unsaved changes to a saved one: the banner and a badge
        storage.save("new", {"draft": {"name": "draft-one", "groups": []}})
        storage.save(storage.edit_key("quiet"), {"draft": {"name": "quiet", "groups": []}})
    await user.open("/")
    await user.should_see(marker="unsaved-new", retries=R)
    await user.should_see("有未保存的修改")
    await user.should_see("2 个组")
    await user.should_see("items · 列表")
    await user.should_see("extra · 一组值")
    await user.should_see("ok · 是/否")
    assert_translated(user, "/ with three sequences, a draft and unsaved changes")

    user.find(marker="search").type("nomatch")
    await user.should_see("没有与“nomatch”匹配的序列。", retries=R)
    assert_translated(user, "/ with a search that matches nothing")
    with user.client:
        storage.drop("new")
        storage.drop(storage.edit_key("quiet"))


async def test_deleting_and_duplicating_are_in_chinese(user: User, chinese: None) -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    user.find(marker="duplicate").click()
    await user.should_see("已复制为“check-three-nodes-2”", retries=R)
    await user.should_see("“fetch-one-node-2”、“dig-deeper-2”")
    assert_translated(user, "/ after duplicating")

    with user.scope(marker="sequence-check-three-nodes-2"):
        user.find(marker="delete").click()
    await user.should_see(marker="delete-dialog", retries=R)
    await user.should_see("删除序列“check-three-nodes-2”？")
    assert_translated(user, "/ with the delete dialog open")
    user.find(marker="confirm-delete").click()
    await user.should_see("已删除“check-three-nodes-2”", retries=R)
    assert await app_ctx().engine.get("check-three-nodes-2") is None
    assert_translated(user, "/ after deleting")


async def test_the_import_dialogs_are_in_chinese(user: User, chinese: None) -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)

    changed = json.loads(EXAMPLE) | {"description": "replaced"}  # the same name: replace it, or keep both
    await upload(user, json.dumps(changed).encode())
    await user.should_see(marker="replace-dialog", retries=R)
    await user.should_see("已经有一个名为“check-three-nodes”的序列。")
    await user.should_see(marker="import-copy")
    assert_translated(user, "/ with the replace dialog open")
    user.find("取消").click()

    taken = json.loads(EXAMPLE) | {"name": "imported"}  # a new name, but its groups' names are taken
    await upload(user, json.dumps(taken).encode())
    await user.should_see(marker="import-names", retries=R)
    await user.should_see("这个文件里的一些名称已被占用")
    await user.should_see("组“fetch-one-node” → “fetch-one-node-2”")
    await user.should_see(marker="import-problem-message")  # the checker's sentence is there, beside its place
    assert_translated(user, "/ with the free names dialog open")
    with user.scope(marker="import-names"):  # the replace dialog, closed, is still in the page's tree
        user.find(marker="import-copy").click()
    await user.should_see("已导入“imported”", retries=R)
    assert_translated(user, "/ after importing with free names")

    broken = EXAMPLE.replace('\\"as\\":\\"detail\\"} ;', '\\"as\\":\\"detail\\"}')
    await upload(user, broken.encode())
    await user.should_see(marker="import-problems", retries=R)
    await user.should_see("有 1 个问题需要修改：")
    await user.should_see("第 1 行，第")
    assert_translated(user, "/ with the problems dialog open")
    user.find("关闭").click()

    fresh = {"name": "imported-group", "groups": [{"name": "imported-group", "in": {}, "out": {},
                                                   "tools": _tools({"tool": "echo", "args": {"value": "x"}})}]}
    await upload(user, json.dumps(fresh).encode())
    await user.should_see("已导入“imported-group”", retries=R)
    assert_translated(user, "/ after importing a new sequence")


def test_the_common_connection_failures_of_a_server_are_in_chinese_and_english_stays_as_reported() -> None:
    """Settings' MCP server row says why a server is down: the failures seen most are in the catalogue."""
    from types import SimpleNamespace

    from gui.ui.components.settings.mcp_list import KNOWN_FAILURES, state_words

    other = "ReadError: something else"
    downs = [SimpleNamespace(status="down", retry_in=None, last_error=e) for e in (*sorted(KNOWN_FAILURES), other)]
    with i18n.use_language("zh-CN"):
        chinese = [state_words(s) for s in downs]
    assert [untranslated_runs(w) for w in chinese[:-1]] == [[] for _ in KNOWN_FAILURES], chinese
    assert chinese[-1] == f"无法连接：{other}"  # an unknown failure is shown as it was reported
    with i18n.use_language("en"):
        assert state_words(downs[0]) == f"Not reachable: {sorted(KNOWN_FAILURES)[0]}"
