"""An approval can carry the arguments as the person edited them: checked first, then run with."""

from __future__ import annotations

import asyncio

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.asks import InteractionValidationError
from gui.core.door.engine import Engine
from gui.core.events import InteractionCreated
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0


async def waiting_command(command: str) -> tuple[Engine, str, str]:
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    asked: asyncio.Queue[str] = asyncio.Queue()
    engine.subscribe(lambda e: asked.put_nowait(e.interaction_id) if isinstance(e, InteractionCreated) else None)
    call = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    await engine.create(seq(group("g", out={"said": "string"}, tools=tools(call))))
    run = await engine.start("s", {})
    return engine, run.run_id, await within(asked.get(), "the approval request")


async def test_an_edited_command_runs_instead_and_the_record_keeps_both():
    engine, run_id, iid = await waiting_command("echo original")
    request = (await engine.get_interaction(iid)).request
    assert request.tool_input["command"] == "echo original"
    edited = {**request.tool_input, "command": "echo edited"}
    await engine.respond(iid, {"kind": "approval", "decision": "approved", "edited_input": edited})
    record = await engine.runner.wait(run_id, T)
    tool = record.groups[0].tools[0]
    assert record.status == "succeeded" and record.outputs["said"].strip() == "edited"
    assert tool.args["command"] == "echo edited" and tool.original_args["command"] == "echo original"
    answered = await engine.get_interaction(iid)
    assert answered.result.response.edited_input["command"] == "echo edited"
    assert answered.request.command == "echo original"  # what was asked stays as it was


@pytest.mark.parametrize(("answer", "says"), [
    ({"decision": "approved", "edited_input": {"command": ""}}, "does not fit cmd_run"),
    ({"decision": "approved", "edited_input": {"nope": 1}}, "does not fit cmd_run"),
    ({"decision": "denied", "edited_input": {"command": "ls"}}, "goes only with an approval"),
])
async def test_a_bad_edit_is_refused_and_the_request_stays_pending(answer, says):
    engine, run_id, iid = await waiting_command("echo original")
    with pytest.raises(InteractionValidationError, match=says):
        await engine.respond(iid, {"kind": "approval", **answer})
    assert (await engine.get_interaction(iid)).status == "pending"
    await engine.stop(run_id)


async def test_an_edit_that_changes_nothing_is_recorded_as_no_change():
    engine, run_id, iid = await waiting_command("echo same")
    asked = (await engine.get_interaction(iid)).request.tool_input
    await engine.respond(iid, {"kind": "approval", "decision": "approved", "edited_input": dict(asked)})
    record = await engine.runner.wait(run_id, T)
    tool = record.groups[0].tools[0]
    assert record.status == "succeeded" and tool.args["command"] == "echo same" and tool.original_args is None


async def test_an_edit_cannot_make_a_rule():
    engine, run_id, iid = await waiting_command("echo original")
    edited = {"command": "echo edited"}
    with pytest.raises(InteractionValidationError, match="an edit is approved once"):
        await engine.respond(iid, {"kind": "approval", "decision": "approved", "scope": "run", "edited_input": edited})
    assert await engine.approval_rules() == [] and (await engine.get_interaction(iid)).status == "pending"
    await engine.stop(run_id)
