"""The inbox in 简体中文: every kind of request, opened; the problems of unanswered questions and an
empty required field; the scope dialog and the banner after allowing; the shortcuts; a denied
request's banner; the history. Each state is walked as tests/ui/test_i18n_screens.py walks the
other screens (its COVERED lists this one too)."""

from __future__ import annotations

import asyncio
from typing import Any

from nicegui.testing import User
from support.i18n_screens import screen_problems, untranslated_runs
from support.ui import app_ctx

INBOX_DATA = {"Nightly", "Checks", "cmd_run", "file_write", "ask_user", "rm", "rf", "build", "tmp", "project",
              "clean", "before", "building", "Saving", "the", "report", "Deploy", "settings", "Why", "deploy",
              "now", "Which", "environment", "Production", "customers", "see", "it", "Staging", "checks", "Lint",
              "Tests", "Calendar", "server", "meeting", "should", "I", "book", "Title", "Length", "Remote", "Room",
              "A", "B", "hi", "x", "txt", "run", "release", "day"}  # what the requests below say: data, not words


def _common(iid: str, **extra: Any) -> dict[str, Any]:
    import time

    return {"interaction_id": iid, "turn_id": "run-123456789", "created_at": int(time.time() * 1000),
            "sequence_name": "Nightly", "group_name": "Checks", "step_fingerprint": "f1", "sequence_identity": "s1",
            **extra}


def _requests() -> list[Any]:
    """A command, a tool (with the real description of file_write: its words are in the catalogue),
    questions and a form, as the inbox tests make them."""
    import time

    from gui.core.asks.interactions import (
        ElicitationField,
        ElicitationRequest,
        ExecutionSource,
        Question,
        QuestionOption,
        QuestionRequest,
        ShellApprovalRequest,
        ToolApprovalRequest,
        ToolSource,
    )

    soon = int(time.time() * 1000) + 600_000
    description = app_ctx().engine.tool("file_write").description
    return [
        ShellApprovalRequest(**_common("shell-1", expires_at=soon), source=ToolSource(tool_call_id="c1",
                                                                                       tool_name="cmd_run"),
                             title="Run a command", command="rm -rf build/", cwd="/tmp/project",
                             reason="clean before building", operation="exec",
                             tool_input={"command": "rm -rf build/"}),
        ToolApprovalRequest(**_common("tool-1"), source=ToolSource(tool_call_id="c", tool_name="file_write"),
                            validated_input={"path": "/tmp/x.txt", "content": "hi"},
                            tool_description=description, model_explanation="Saving the report."),
        QuestionRequest(**_common("q-1"), source=ToolSource(tool_call_id="c2", tool_name="ask_user"),
                        title="Deploy settings", questions=[
                            Question(question_id="why", prompt="Why deploy now?", response_type="text"),
                            Question(question_id="env", prompt="Which environment?", response_type="single_select",
                                     options=[QuestionOption(value="prod", label="Production",
                                                             description="customers see it"),
                                              QuestionOption(value="stage", label="Staging")]),
                            Question(question_id="checks", prompt="Which checks?", response_type="multi_select",
                                     required=False, options=[QuestionOption(value="lint", label="Lint"),
                                                              QuestionOption(value="tests", label="Tests")])]),
        ElicitationRequest(
            **_common("f-1"), source=ExecutionSource(), server_name="Calendar server",
            message="Which **meeting** should I book?", fields=[
                ElicitationField(name="title", type="string", title="Title", required=True),
                ElicitationField(name="minutes", type="number", title="Length", default=30),
                ElicitationField(name="remote", type="boolean", title="Remote"),
                ElicitationField(name="room", type="string", title="Room", enum=["A", "B"], default="A")]),
    ]


def assert_inbox_translated(user: User, what: str) -> None:
    allowed = INBOX_DATA | {"cmd_run"}
    problems = screen_problems(user.current_layout, allowed)
    problems += [f"notification {m!r}" for m in user.notify.messages if untranslated_runs(m, allowed)]
    assert not problems, f"{what}: words on screen without a translation:\n" + "\n".join(problems)


async def test_the_inbox_is_in_chinese(user: User, chinese: None):
    from gui.core.asks.interactions import ApprovalResponse, ElicitationResponse, QuestionResponse

    engine = app_ctx().engine
    await user.open("/inbox")
    await user.should_see("全部处理完了。")
    assert_inbox_translated(user, "/inbox, nothing waiting")
    handles = {r.interaction_id: await engine.interactions.request(r) for r in _requests()}
    for iid in handles:
        await user.open(f"/inbox/{iid}")
        await user.should_see(marker="inbox-detail")
        await user.should_see("需要你处理（4）", retries=50)
        assert_inbox_translated(user, f"/inbox/{iid}")
    await user.open("/inbox/q-1")
    user.find(marker="send-answer").click()  # nothing answered: the problems under each question
    await user.should_see("请回答这个问题", retries=50)
    assert_inbox_translated(user, "/inbox/q-1, unanswered questions")
    await user.open("/inbox/f-1")
    user.find(marker="accept").click()
    await user.should_see(marker="form-problem", retries=50)
    assert_inbox_translated(user, "/inbox/f-1, a required field left empty")
    user.find(marker="shortcuts-button").click()
    await user.should_see(marker="shortcuts-dialog", retries=50)
    assert_inbox_translated(user, "/inbox, the shortcuts")

    await engine.interactions.respond("shell-1", ApprovalResponse(decision="denied", reason="以后再说"))
    await engine.interactions.respond("q-1", QuestionResponse(decision="declined"))
    await engine.interactions.respond("f-1", ElicitationResponse(action="decline"))
    await user.open("/inbox/shell-1")  # an ended request: its banner
    await user.should_see(marker="ended-banner", retries=50)
    assert_inbox_translated(user, "/inbox/shell-1, denied")
    await user.open("/inbox/tool-1")  # the one still waiting (so no other request opens after it)
    user.find(marker="always-allow").click()  # the scope dialog
    await user.should_see(marker="scope-dialog", retries=50)
    assert_inbox_translated(user, "/inbox/tool-1, the scope dialog")
    user.find(marker="scope-confirm").click()
    await user.should_see("现在无需询问即允许", retries=50)
    assert_inbox_translated(user, "/inbox, after allowing file_write for this run")
    await asyncio.wait_for(handles["tool-1"].result(), 5)
    user.find(marker="tab-history").click()
    await user.should_see(marker="history-list", retries=50)
    await user.should_see(marker="history-row", retries=50)
    assert_inbox_translated(user, "/inbox, history: denied, declined, not shared, approved for this run")
    await user.open("/settings")  # the rule just made, listed where it can be taken back
    await user.should_see("无需询问即可运行", retries=50)
    assert_inbox_translated(user, "/settings, the rule made in the inbox")
