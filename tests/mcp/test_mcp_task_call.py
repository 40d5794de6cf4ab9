"""A tool that requires a task, on a real SDK server: `simulate-research-query` of the TypeScript SDK's
`server-everything` (its listing says `execution.taskSupport: required`; called plainly it fails with
-32601). SeqDesk calls it as a task: the question the task asks reaches the inbox like any other, its
status messages are the step's progress, and a stopped run cancels the task.

The server comes from npm (`npm install @modelcontextprotocol/server-everything`, verified with 2026.8.31;
`.ci/run` installs it); give its `dist/index.js` in MCP_SERVER_EVERYTHING. Without it (or without node)
these tests are skipped, and under CI=true they fail.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from mcp_support import expect
from support.waiting import within

from gui.core.asks.elicitation import InboxElicitationHandler
from gui.core.asks.interactions import ElicitationResponse
from gui.core.tools.registry import ToolContext
from gui.mcp.config import McpServerConfig

TOOL = "everything.simulate-research-query"


@pytest.fixture
def everything(server_everything: tuple[str, str]) -> McpServerConfig:
    node, script = server_everything
    return McpServerConfig(name="everything", command=node, args=[script, "stdio"])


def research(ambiguous: bool) -> dict:
    step = {"tool": TOOL, "args": {"topic": "python", "ambiguous": ambiguous}, "as": "report"}
    return {"name": "research", "description": "", "groups": [
        {"name": "research-g", "in": {}, "out": {"report": "string"}, "tools": json.dumps(step) + " ;"}]}


async def test_a_tool_that_requires_a_task_runs_as_one_and_its_question_waits_in_the_inbox(connect, engine, registry,
                                                                                           everything):
    await connect(everything, InboxElicitationHandler(engine.interactions))
    engine.modes.set(TOOL, "always-allow")
    await engine.create(research(ambiguous=True))
    asked = expect(engine, "interaction.created", lambda e: e.data.get("kind") == "elicitation")
    run = asyncio.create_task(engine.run("research"))
    await within(asked, "the task's question in the inbox")
    [pending] = await engine.interactions.pending()
    assert pending.request.source.tool_name == TOOL and pending.request.turn_id
    [field] = pending.request.fields
    assert field.name == "interpretation" and field.enum
    await engine.interactions.respond(pending.interaction_id,
                                      ElicitationResponse(action="accept", values={"interpretation": field.enum[0]}))
    record = await within(run, "the run's end")
    assert record.status == "succeeded", record.to_summary_json()
    assert f"python ({field.enum[0]})" in record.outputs["report"]


async def test_the_tasks_status_is_the_steps_progress(connect, registry, everything):
    await connect(everything)
    seen: list[str] = []
    logged: list[str] = []
    ctx = ToolContext(run_id="r", tool_call_id="r-0-0", tool_name=TOOL,
                      progress=lambda _done, _total, message: seen.append(message or ""),
                      log=lambda _level, text: logged.append(text))
    result = await within(registry.get(TOOL).call({"topic": "rust"}, ctx), "the task's result")
    assert "Research Report: rust" in result
    assert any("Gathering sources" in m for m in seen) and any("Generating report" in m for m in seen)
    assert any(line.startswith("task ") for line in logged)


async def test_stopping_the_run_cancels_the_task(connect, engine, caplog, everything):
    caplog.set_level(logging.INFO, logger="gui.mcp.task_call")
    await connect(everything, InboxElicitationHandler(engine.interactions))
    engine.modes.set(TOOL, "always-allow")
    await engine.create(research(ambiguous=False))
    working = expect(engine, "tool.progress")
    record = await engine.start("research", {})
    await within(working, "the task's progress")
    assert await within(engine.stop(record.run_id), "the stop") is True
    assert (await engine.get_run(record.run_id)).status == "stopped"
    assert any(r.name == "gui.mcp.task_call" and "cancelled" in r.getMessage() for r in caplog.records)
