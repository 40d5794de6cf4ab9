"""Tasks as the 2026-07-28 protocol has them (the `io.modelcontextprotocol/tasks` extension), against a
real SDK server that answers calls with tasks (`task_server.py`): the task's question waits in the inbox
like any other and its answer goes back with the form's defaults, the status messages are the step's
progress, and a stopped run cancels the task on the server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from mcp_support import expect
from support.waiting import within

from gui.core.asks.elicitation import InboxElicitationHandler
from gui.core.asks.interactions import ElicitationResponse
from gui.mcp.config import McpServerConfig

SERVER = str(Path(__file__).with_name("task_server.py"))


def tasks_server(log: Path) -> McpServerConfig:
    return McpServerConfig(name="tasks", command=sys.executable, args=[SERVER], env={"TASK_SERVER_LOG": str(log)})


def sequence(tool: str) -> dict:
    step = {"tool": f"tasks.{tool}", "args": {}, "as": "verdict"}
    return {"name": tool, "description": "", "groups": [
        {"name": f"{tool}-g", "in": {}, "out": {"verdict": "string"}, "tools": json.dumps(step) + " ;"}]}


async def test_a_task_that_needs_input_asks_in_the_inbox_and_finishes_with_the_answer(connect, engine, tmp_path):
    conn = await connect(tasks_server(tmp_path / "log"), InboxElicitationHandler(engine.interactions))
    assert conn.state.protocol == "2026-07-28"
    engine.modes.set("tasks.review", "always-allow")
    await engine.create(sequence("review"))
    asked = expect(engine, "interaction.created", lambda e: e.data.get("kind") == "elicitation")
    progress = expect(engine, "tool.progress")
    run = asyncio.create_task(engine.run("review"))
    await within(asked, "the task's question in the inbox")
    await within(progress, "the task's progress")
    [pending] = await engine.interactions.pending()
    assert pending.request.message == "Approve the review?" and pending.request.source.tool_name == "tasks.review"
    await engine.interactions.respond(pending.interaction_id,
                                      ElicitationResponse(action="accept", values={"verdict": "approve"}))
    record = await within(run, "the run's end")
    assert record.status == "succeeded", record.to_summary_json()
    assert record.outputs["verdict"] == "accept: approve (none)"  # "none": the form's default for the note


async def test_stopping_the_run_cancels_the_task_on_the_server(connect, engine, tmp_path):
    log = tmp_path / "log"
    await connect(tasks_server(log), InboxElicitationHandler(engine.interactions))
    engine.modes.set("tasks.slow", "always-allow")
    await engine.create(sequence("slow"))
    working = expect(engine, "tool.progress")
    record = await engine.start("slow", {})
    await within(working, "the task's progress")
    assert await within(engine.stop(record.run_id), "the stop") is True
    assert (await engine.get_run(record.run_id)).status == "stopped"
    assert log.read_text(encoding="utf-8").startswith("cancelled ")
