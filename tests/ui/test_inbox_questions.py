"""Questions as a person answers them in the inbox, from a real `ask_user` run: optional questions
can be skipped, plain-label choices read as labels, and the whole request can be declined."""

from __future__ import annotations

import asyncio
import json

from nicegui.testing import User
from support.ui import app_ctx, engine_open  # noqa: F401  (autouse: wait for the engine)

R = 100

ASK = {"tool": "ask_user", "as": "answers", "args": {"title": "Release check", "questions": [
    {"id": "env", "prompt": "Which environment?", "type": "single_select", "options": ["alpha", "beta"]},
    {"id": "note", "prompt": "Anything to add?", "required": False},
    {"id": "tags", "prompt": "Tags?", "type": "multi_select", "options": [{"label": "fast"}], "required": False},
]}}


async def start_questions(name: str) -> str:
    engine = app_ctx().engine
    await engine.create({"name": name, "groups": [{"name": f"{name}-g", "in": {}, "out": {"answers": "object"},
                                                   "tools": json.dumps(ASK) + " ;"}]})
    created = asyncio.Event()
    unsubscribe = engine.subscribe(lambda e: created.set() if e.type == "interaction.created" else None)
    record = await engine.start(name, {})
    await asyncio.wait_for(created.wait(), 5)
    unsubscribe()
    return record.run_id


async def test_optional_questions_can_be_skipped_and_plain_labels_are_the_values(user: User):
    run_id = await start_questions("ask-skip")
    await user.open("/inbox")
    await user.should_see("Release check", retries=R)
    await user.should_see(marker="q-note-optional")
    user.find("beta").click()
    user.find(marker="q-tags-skip").click()
    user.find(marker="send-answer").click()
    await user.should_see("Answer sent.", retries=R)
    record = await app_ctx().engine.runner.wait(run_id, timeout=5)
    assert record.status == "succeeded"
    assert record.outputs["answers"] == {"env": "beta", "note": None, "tags": None}


async def test_a_required_question_left_empty_is_marked_and_nothing_is_sent(user: User):
    run_id = await start_questions("ask-required")
    await user.open("/inbox")
    await user.should_see("Release check", retries=R)
    user.find(marker="send-answer").click()
    await user.should_see("1 question still needs an answer", retries=R)
    await user.should_see(marker="q-env-error")
    assert [r.status for r in await app_ctx().engine.pending(run_id)] == ["pending"]
    await app_ctx().engine.stop(run_id)


async def test_declining_the_whole_request_reaches_the_tool_and_reads_declined_by_you(user: User):
    run_id = await start_questions("ask-decline")
    await user.open("/inbox")
    await user.should_see("Release check", retries=R)
    user.find(marker="decline-question").click()
    await user.should_see("Declined: the step was told you chose not to answer.", retries=R)
    record = await app_ctx().engine.runner.wait(run_id, timeout=5)
    tool = record.groups[0].tools[0]
    assert tool.status == "failed" and tool.denied and tool.attempts == 1
    await user.open(f"/run/{run_id}")
    await user.should_see("Declined by you: you chose not to answer", retries=R)


async def test_a_tool_approval_names_its_arguments_in_plain_words_never_null(user: User):
    import time

    from nicegui import ui

    from gui.core.asks.interactions import ToolApprovalRequest, ToolSource

    request = ToolApprovalRequest(interaction_id="t-words", turn_id="run-1", created_at=int(time.time() * 1000),
                                  source=ToolSource(tool_call_id="c", tool_name="file_read"),
                                  validated_input={"path": "/etc/hosts", "encoding": None})
    await app_ctx().engine.interactions.request(request)
    await user.open("/inbox/t-words")
    await user.should_see("Use tool: file_read", retries=R)
    texts = {e.text for e in user.find(kind=ui.label).elements}
    assert "File" in texts and "Encoding" in texts
    assert not {"path", "null", "None"} & texts
