"""Every word on the translated screens comes from the catalogue: each page below is drawn in
简体中文 and its element tree walked (labels, buttons, tooltips, placeholders, choices, aria-labels,
and the notifications it raised); any run of Latin letters that is not a name or keyword on the
allow-list (`i18n_support.ALLOWED`) fails, naming the element and its text.

COVERED lists the screens checked here. When a screen is translated, add it (and the states that
show its other words); the inbox is checked in test_i18n_inbox_screens.py, the editor's screens in
test_i18n_editor_screens.py, the Sequences page in test_i18n_pages_screens.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from nicegui.testing import User
from support.i18n_screens import html_problems, screen_problems
from support.ui import app_ctx, mcp_store
from support.waiting import wait_until

from gui import i18n
from gui.api.auth import login_page
from gui.api.pairing import gone_body, not_paired_body, pair_body
from gui.core.runs.run_ids import short_id
from gui.mcp.config import McpServerConfig
from gui.notify.notifier import ChannelStatus
from gui.store.recovery import Damage
from gui.ui.components.settings.mcp_list import state_words
from gui.ui.components.settings.notifications import status_words
from gui.ui.pages.oauth_callback import result_page

COVERED = {
    "/settings": "the frame (header, nav, menu, dark mode), Language, Approvals, Use on your phone (off, "
                 "failing to turn on, on with a pairing code and a paired phone), Notifications, Data "
                 "folder, MCP servers (list, add form and its problems, headers dialog, remove dialog), the store "
                 "notice, and their notifications",
    "/login": "the token form (HTML), with its error",
    "/pair/<code>": "the phone's pairing page, the expired code page, the not-paired page (HTML)",
    "/oauth/callback": "the sign-in result pages (HTML)",
    "/run": "the empty run page; a run waiting for approval (banner, card, the tool's details, the stop "
            "question), stopped by you; a run that succeeded (its results, a tool's details and result)",
    "/runs": "the runs history (empty, two finished runs: statuses, columns, durations, reasons, the count)",
    "/runs/<id>": "a run record with a skipped group, a failed run that can be resumed, a run that is not there",
    "/inbox": "nothing waiting; a command (with its countdown), a tool, questions, a form, each opened; the "
              "problems of unanswered questions and an empty required field; the scope dialog and the banner "
              "after allowing; the shortcuts; a denied request's banner; the history",
    "Schedules": "the Schedules section (none yet; one every 15 minutes and one at set times, going and paused)",
}
# Names the tests below create (a server, its headers, a phone): data, not words.
DATA_WORDS = {"docs", "clock", "Authorization", "X-Team", "cmd_run"}



def only(user: User, marker: str) -> Any:
    (element,) = user.find(marker=marker).elements
    return element


def assert_translated(user: User, what: str) -> None:
    problems = screen_problems(user.current_layout, DATA_WORDS)
    problems += [f"notification {m!r}" for m in user.notify.messages if screen_problems_in(m)]
    assert not problems, f"{what}: words on screen without a translation:\n" + "\n".join(problems)


def screen_problems_in(text: str) -> list[str]:
    from support.i18n_screens import untranslated_runs

    return untranslated_runs(text, DATA_WORDS)


async def test_settings_and_the_frame_are_all_in_chinese(user: User, chinese: None):
    ctx = app_ctx()
    store = mcp_store()
    await store.save(McpServerConfig(name="clock", transport="stdio", command="uvx", args=["mcp-server-time"]))
    await store.save(McpServerConfig.model_validate(
        {"name": "docs", "transport": "http", "url": "https://docs.example.org/mcp",
         "headers": {"Authorization": "Bearer x", "X-Team": ""}}))
    ctx.engine.modes.set("cmd_run", "always-allow")
    with i18n.use_language("zh-CN"):
        ctx.notices.append(Damage(Path("/data/runs.json"), Path("/data/runs.json.corrupt-1"), 2).message)
    try:
        await user.open("/settings")
        await user.should_see("设置")
        await user.should_see(marker="mcp-docs")
        await user.should_see(marker="store-notice")
        assert_translated(user, "/settings")

        user.find(marker="mcp-change-headers-docs").click()  # the headers dialog
        await user.should_see(marker="mcp-edit-headers")
        assert_translated(user, "/settings, headers dialog")
        user.find("取消").click()

        user.find(marker="mcp-remove-clock").click()  # the remove dialog
        await user.should_see(marker="mcp-confirm-remove")
        assert_translated(user, "/settings, remove dialog")
        user.find(marker="mcp-confirm-remove").click()
        await user.should_not_see(marker="mcp-clock", retries=50)

        user.find(marker="revoke-cmd_run").click()
        await user.should_see("每次询问", retries=50)
        only(user, "mcp-name").value = "Bad Name"
        user.find(marker="mcp-add").click()
        await wait_until(lambda: only(user, "mcp-name").error, "the name's problem, at the name", timeout=5)
        assert_translated(user, "/settings, a name that is not allowed")
        only(user, "mcp-name").value = "good"
        user.find(marker="mcp-add").click()
        await wait_until(lambda: only(user, "mcp-command").error, "the empty command, at the command", timeout=5)
        user.find(marker="notify-save").click()
        user.find(marker="store-notice-dismiss").click()
        assert len(user.notify.messages) >= 3, user.notify.messages  # removed, rule taken back, saved
        assert_translated(user, "/settings, after removing, revoking, a missing command and saving")

        only(user, "notify-webhook").value = "ftp://example.org/hook"
        user.find(marker="notify-save").click()
        await user.should_see(marker="notify-problem")
        user.find(marker="phone-switch").click()  # this test app has no fixed port: it says why not
        await user.should_see(marker="phone-problem", retries=50)
        assert_translated(user, "/settings, a bad webhook address and phone access that cannot turn on")
    finally:
        ctx.notices.clear()


def test_the_words_drawn_from_states_are_in_chinese():
    """Connection and delivery states the page shows (not all can be brought about in a test app)."""
    states = [None, SimpleNamespace(status="connected", tools=["a", "b"], protocol="2025-06-18"),
              SimpleNamespace(status="connecting"), SimpleNamespace(status="down", needs_sign_in=True),
              SimpleNamespace(status="down", retry_in=30.0, last_error=None),
              SimpleNamespace(status="disabled")]
    statuses = [ChannelStatus(), ChannelStatus(ok_at=1_764_590_000), ChannelStatus(retrying=1),
                ChannelStatus(error="无法连接", error_at=1_764_590_000)]
    with i18n.use_language("zh-CN"):
        words = [state_words(s) for s in states] + [status_words(s) for s in statuses]
        words.append(Damage(Path("/d/i.json"), Path("/d/i.json.corrupt"), None).message)
    problems = [(w, r) for w in words if (r := screen_problems_in(w.replace("30 s", "")))]
    assert not problems, problems


async def test_the_html_pages_are_in_chinese(user: User, chinese: None):
    pages = {
        "/login": login_page("/").body.decode(),
        "/login, wrong token": login_page("/", i18n._("That token is not right.")).body.decode(),
        "/pair/<code>": pair_body("/pair/abc"),
        "/pair/<code>, expired": gone_body(),
        "/pair/<code>, not paired": not_paired_body(),
        "/oauth/callback": result_page(i18n._("Still signing in"), i18n._("SeqDesk is not waiting for a sign-in."),
                                       back=True).body.decode(),
    }
    answer = await user.http_client.get("/pair/not-a-code")  # through the app's route
    assert answer.status_code == 410
    pages["GET /pair/not-a-code"] = answer.text
    answer = await user.http_client.get("/oauth/callback?state=x&code=y")
    pages["GET /oauth/callback"] = answer.text
    for name, page in pages.items():
        assert 'lang="zh-CN"' in page or "<html" not in page, name
        problems = html_problems(page)
        assert not problems, f"{name}: {problems}"


async def test_the_switch_in_settings_changes_the_language_and_the_app_keeps_it(user: User):
    ctx = app_ctx()
    assert ctx.preferences is not None
    await user.open("/settings")
    await user.should_see("Language")
    only(user, "language-switch").value = "zh_CN"
    await user.should_see("语言", retries=50)  # the page was drawn again, in Chinese
    assert ctx.preferences.read()["lang"] == "zh_CN"
    await user.open("/settings")  # another page of this browser
    await user.should_see("在这里，每个步骤都在这台电脑上运行")
    assert i18n.default_language() == "zh_CN"  # and pages outside a browser (login, pairing) follow the app
    only(user, "language-switch").value = "en"
    await user.should_see("Language", retries=50)
    assert ctx.preferences.read()["lang"] == "en"


async def test_phone_access_when_on_is_in_chinese(user: User, chinese: None):
    """Phone access turned on (on the loopback address, for the test), a code shown, a phone paired."""
    from nicegui import core

    from gui.serving import free_port

    phone = app_ctx().phone
    assert phone is not None
    phone.address, phone.port = (lambda: "127.0.0.1"), free_port("127.0.0.1")
    assert await phone.turn_on(core.app) is None
    try:
        phone.phones.add("iPhone, Safari")
        await user.open("/settings")
        await user.should_see(marker="phone-url")
        user.find(marker="phone-pair").click()
        await user.should_see(marker="phone-qr")
        assert_translated(user, "/settings, phone access on, a pairing code, a paired phone")
        (paired,) = phone.phones.list()
        user.find(marker=f"phone-forget-{paired.phone_id}").click()
        await user.should_see(marker="phone-none")
        assert_translated(user, "/settings, the phone forgotten")
    finally:
        await phone.turn_off()


# -- the run panel, the run record, the runs history, the schedules -------------------------------------

RUN_DATA = {"greet", "hello", "echo", "cmd_run", "shell", "shell-g", "hi", "Ada", "who", "true", "maybe",
            "maybe-g", "greet-g", "go", "greeting", "said", "broken", "broken-g", "file_read", "nope", "x", "txt"}


def _tools(*calls: dict) -> str:
    import json

    return " ".join(json.dumps(c) + " ;" for c in calls)


def assert_run_translated(user: User, what: str, *run_ids: str) -> None:
    allowed = DATA_WORDS | RUN_DATA | {w for i in run_ids for shown in (i, short_id(i))  # hex ids, data; a short
                                        for w in re.findall("[A-Za-z]+", shown)}  # id may cut a run of letters
    problems = screen_problems(user.current_layout, allowed)
    problems += [f"notification {m!r}" for m in user.notify.messages if untranslated(m, allowed)]
    assert not problems, f"{what}: words on screen without a translation:\n" + "\n".join(problems)


def untranslated(text: str, allowed: set[str]) -> list[str]:
    from support.i18n_screens import untranslated_runs

    return untranslated_runs(text, allowed)


async def _start(name: str, *calls: dict, args: dict[str, Any] | None = None, **fields: Any) -> str:
    engine = app_ctx().engine
    await engine.create({"name": name, "groups": [{"name": f"{name}-g", "in": {}, "out": {},
                                                   "tools": _tools(*calls), **fields}]})
    record = await engine.start(name, args or {})
    return record.run_id


async def finished(*run_ids: str, timeout: float = 10.0) -> None:
    """Until every run has ended (a bounded wait on their records)."""
    engine = app_ctx().engine

    async def all_ended() -> bool:
        return all([(record := await engine.get_run(run_id)) is not None and record.finished for run_id in run_ids])

    await wait_until(all_ended, f"runs {', '.join(run_ids)} to end", timeout=timeout, every=0.02)


async def test_the_run_panel_is_in_chinese_while_waiting_stopping_and_when_done(user: User, chinese: None):
    await user.open("/run")  # nothing saved, nothing run
    await user.should_see("还没有保存的序列。")
    assert_run_translated(user, "/run, empty")

    run_id = await _start("shell", {"tool": "cmd_run", "args": {"command": "true"}},
                          {"tool": "echo", "args": {"value": "hi"}})
    await user.open(f"/run/{run_id}")
    await user.should_see("等你处理", retries=100)
    await user.should_see("1 个请求需要你处理", retries=100)
    assert_run_translated(user, "/run/<id>, a command waiting for approval", run_id)
    user.find(marker="tool-0-0").click()  # the Details tab of the waiting tool
    await user.should_see(marker="tool-detail")
    await user.should_see("它在等你的回答。")
    assert_run_translated(user, "/run/<id>, the waiting tool's details", run_id)
    user.find(marker="answer-here").click()  # the request, answered beside the run
    await user.should_see(marker="answer-panel", retries=50)
    await user.should_see("想要运行", retries=50)
    assert_run_translated(user, "/run/<id>, the request opened beside the run", run_id)
    user.find(marker="answer-panel-close").click()
    user.find(marker="stop-run").click()
    await user.should_see("现在停止吗？正在运行的工具会被取消。")
    assert_run_translated(user, "/run/<id>, the stop question", run_id)
    user.find(marker="confirm-stop").click()
    await user.should_see("已被你停止", retries=100)
    assert_run_translated(user, "/run/<id>, stopped by you", run_id)

    done = await _start("greet", {"tool": "echo", "args": {"value": "hi Ada"}, "as": "greeting"},
                        out={"greeting": "string"})
    await finished(done)
    await user.open(f"/run/{done}")
    await user.should_see("已结束 · 1 个工具中 1 个成功", retries=100)
    await user.should_see(marker="output-greeting")
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-result")
    assert_run_translated(user, "/run/<id>, a run that succeeded, its results and a tool's details", done)


async def test_the_runs_history_and_a_run_record_are_in_chinese(user: User, chinese: None):
    engine = app_ctx().engine
    await user.open("/runs")
    await user.should_see("还没有运行。")
    assert_run_translated(user, "/runs, no runs yet")
    skipped = await _start("maybe", {"tool": "echo", "args": {"value": 1}}, when="$args.go == true",
                           args={"go": False}, **{"in": {"go": "boolean"}})
    engine.modes.set("file_read", "always-allow")
    failed = await _start("broken", {"tool": "file_read", "args": {"path": "/nope/x.txt"}})
    await finished(skipped, failed)
    await user.open("/runs")
    await user.should_see(marker="runs-table")
    await user.should_see("2 次运行", retries=50)
    table = only(user, "runs-table")
    words = [row["word"] for row in table.rows] + [c["label"] for c in table.columns] + \
            [row["duration"] + " " + row["reason"] for row in table.rows if "nope" not in row["reason"]]
    assert not [w for w in words if untranslated(w, RUN_DATA)], words
    assert_run_translated(user, "/runs, two finished runs")
    await user.open(f"/runs/{skipped}")
    await user.should_see("已跳过：只有当", retries=50)
    assert_run_translated(user, "/runs/<id>, a skipped group", skipped)
    await user.open(f"/runs/{failed}")
    await user.should_see(marker="resume")
    error = (await engine.get_run(failed)).groups[0].tools[0].error  # the tool's own words: shown as it wrote them
    assert_run_translated(user, "/runs/<id>, a failed run that can be resumed", failed, error or "", "utf-8")
    await user.open("/runs/no-such-run")
    await user.should_see("没有运行 no-such-run。")


async def test_the_schedules_section_is_in_chinese(user: User, chinese: None):
    from nicegui import ui

    from gui.ui.components.schedules import SchedulesSection

    engine = app_ctx().engine
    await engine.create({"name": "greet", "groups": [{"name": "hello", "in": {"who": "string"}, "out": {},
                                                      "tools": _tools({"tool": "echo", "args": {"value": "hi"}})}]})

    @ui.page("/i18n-schedules")
    async def page() -> None:
        section = SchedulesSection(engine)
        await section.refresh()

    await user.open("/i18n-schedules")
    await user.should_see(marker="no-schedules")
    assert_run_translated(user, "Schedules, none yet")
    await engine.create_schedule("greet", {"who": "Ada"}, every="15m")
    await engine.create_schedule("greet", {"who": "Ada"}, cron="*/15 * * * *")
    await user.open("/i18n-schedules")
    await user.should_see("每 15 分钟")
    assert_run_translated(user, "Schedules, two schedules")
    user.find(marker="pause").click()  # both: each shows Paused and Go on
    await user.should_see(marker="paused", retries=50)
    assert_run_translated(user, "Schedules, two schedules (every 15 minutes, at set times), paused")


# -- the inbox ---------------------------------------------------------------------------------------------
