"""A run's page says when the agent that asked for the run stopped waiting, and that it went on,
seen through NiceGUI's simulated user."""

from __future__ import annotations

import json

from nicegui.testing import User
from support.ui import app_ctx
from support.waiting import wait_until

from gui.core.asks.interactions import ApprovalResponse

SHELL = {"name": "shell", "groups": [{"name": "shell-g", "out": {"said": "string"}, "tools": json.dumps(
    {"tool": "cmd_run", "args": {"command": "echo hello"}, "as": "said"}) + " ;"}]}


async def test_the_run_page_says_the_agent_stopped_waiting_and_the_run_went_on(user: User):
    engine = app_ctx().engine
    await engine.create(SHELL)
    record = await engine.start("shell")
    [pending] = await wait_until(lambda: engine.pending(record.run_id), "the approval to wait")
    assert await engine.agent_stopped_waiting(record.run_id)
    await engine.respond(pending.request.interaction_id, ApprovalResponse(decision="approved"))
    await engine.runner.wait(record.run_id, 5)
    await engine.agent_leaving.settle()
    await user.open(f"/runs/{record.run_id}")
    await user.should_see(marker="agent-left")
    await user.should_see("the run went on for you.")
    await user.open(f"/run/{record.run_id}")  # the run's live page says it too
    await user.should_see(marker="agent-left")
