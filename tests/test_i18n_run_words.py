"""What the core and the built-in tools say at run time, on screen in 简体中文 while the records, the
requests and the API keep the English: an approval's one-sentence summary in the inbox (kept with its
template), and what a run record keeps as text (a tool's error, the runner's reasons, the condition
evaluator's), read back into its marked template by the run panel and the run record page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from support.i18n_screens import screen_problems  # noqa: E402
from support.waiting import wait_until

from gui import i18n
from gui.tools import default_registry


async def test_an_approval_summary_is_in_chinese_in_the_inbox_and_english_in_the_request(user: Any, tmp_path: Path):
    from support.ui import app_ctx

    saved = dict(i18n._default)
    i18n.set_defaults(started="zh_CN")
    try:
        await app_ctx().wait_open(timeout=5)
        engine = app_ctx().engine
        target = tmp_path / "notes.txt"
        tools = " ".join(json.dumps(c) + " ;" for c in (
            {"tool": "file_read", "args": {"path": str(target)}},
            {"tool": "http_get", "args": {"url": "https://example.com/status", "headers": {"Accept": "x"}}}))
        await engine.create({"name": "peek", "groups": [{"name": "peek-g", "in": {}, "out": {}, "tools": tools}]})
        run = await engine.start("peek", {})
        async def both() -> list:
            asked = await engine.interactions.pending(run.run_id)
            return asked if len(asked) >= 2 else []

        pending = await wait_until(both, "both requests in the inbox", timeout=10)
        said = {}
        for record in pending:
            request = record.request
            english = {"file_read": f"Read the file {target}",
                       "http_get": "Send a request to example.com with extra headers: https://example.com/status"}
            tool = request.source.tool_name
            assert request.summary == english[tool]  # the API's words, and what the records keep
            await user.open(f"/inbox/{request.interaction_id}")
            await user.should_see(marker="approval-summary", retries=50)
            (summary,) = user.find(marker="approval-summary").elements
            said[tool] = "".join(el.text for el in summary.descendants())
            assert not screen_problems(summary, {"example"}), screen_problems(summary, {"example"})
            (bold,) = user.find(marker="approval-highlight").elements
            assert bold.text == (str(target) if tool == "file_read" else "example.com")  # the part to check
        assert said == {"file_read": f"读取文件 {target}",
                        "http_get": "向 example.com 发送一个带额外请求头的请求：https://example.com/status"}
        await engine.stop(run.run_id)
    finally:
        i18n._default.update(saved)


async def _tool_error(name: str, args: dict[str, Any]) -> str:
    from gui.core.errors import ToolError
    from gui.core.tools.registry import ToolContext

    tool = default_registry().get(name)
    assert tool is not None
    try:
        await tool.call(tool.validate_args(args), ToolContext(run_id="r", tool_call_id="c", tool_name=name))
    except ToolError as exc:
        return str(exc)
    raise AssertionError(f"{name} did not fail")


async def test_what_a_run_record_keeps_in_english_is_said_in_chinese_on_screen(tmp_path: Path):
    from gui.wording.outcomes import core_words, run_error_words

    missing, folder = tmp_path / "nope.txt", tmp_path
    kept = {  # the English a record keeps, exactly as the tools and the runner write it
        await _tool_error("file_read", {"path": str(missing)}): f"找不到文件：{missing}",
        await _tool_error("file_read", {"path": str(folder)}): f"{folder} 是文件夹，不是文件",
        await _tool_error("cmd_run", {"command": "exit 3"}): "命令退出，退出码 3（没有输出错误信息）",
        await _tool_error("cmd_run", {"command": "true", "cwd": str(missing)}): f"文件夹 {missing} 不存在",
        f"tool 2 (file_read) failed: file not found: {missing}": f"工具 2（file_read）失败：找不到文件：{missing}",
        "its condition `$args.n > 1` could not be evaluated: $args.n has no value":
            "它的条件 `$args.n > 1` 无法求值：$args.n 没有值",
        "the group's time limit (2s) ran out": "组的时间限制（2s）已用完",
        "an MCP server's own words": "an MCP server's own words",  # not ours: as it was written
    }
    assert list(kept)[:4] == [f"file not found: {missing}", f"{folder} is a folder, not a file",
                              "the command exited with code 3 (it printed no error)",
                              f"the folder {missing} does not exist"]  # the English, as before
    for english, chinese in kept.items():
        assert core_words(english) == english
        with i18n.use_language("zh-CN"):
            assert core_words(english) == chinese
    with i18n.use_language("zh-CN"):
        assert run_error_words("group 'g' failed: timed out after 2s") == "组“g”失败：2s 后超时"
        assert core_words("x" * 5000) == "x" * 5000  # long output is never matched


async def test_a_failed_tool_on_the_run_record_page_is_in_chinese(user: Any, tmp_path: Path):
    from support.ui import app_ctx

    saved = dict(i18n._default)
    i18n.set_defaults(started="zh_CN")
    try:
        await app_ctx().wait_open(timeout=5)
        engine = app_ctx().engine
        engine.modes.set("file_read", "always-allow")
        target = tmp_path / "nope.txt"
        tools = json.dumps({"tool": "file_read", "args": {"path": str(target)}}) + " ;"
        await engine.create({"name": "broken", "groups": [{"name": "broken-g", "in": {}, "out": {}, "tools": tools}]})
        run = await engine.start("broken", {})
        async def finished() -> Any:
            found = await engine.get_run(run.run_id)
            return found if found is not None and found.finished else None

        record = await wait_until(finished, "the run to finish", timeout=10)
        assert record.groups[0].tools[0].error == f"file not found: {target}"  # the record keeps the English
        await user.open(f"/runs/{run.run_id}")
        await user.should_see(f"找不到文件：{target}", retries=50)  # the tool's error, in Chinese
        await user.should_see(f"组“broken-g”失败：工具 1（file_read）失败：找不到文件：{target}", retries=50)
        ids = set(re.findall("[A-Za-z]+", run.run_id))
        left = screen_problems(user.current_layout, ids | {"broken", "broken-g", "file_read", "nope", "txt", "utf"})
        assert not left, left
    finally:
        i18n._default.update(saved)
