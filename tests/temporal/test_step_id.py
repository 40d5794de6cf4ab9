"""A command sees its step's id (SEQDESK_STEP_ID), on either executor: the same in every attempt, so a
command called again after its app or worker stopped can tell that it did its work already."""

from __future__ import annotations

import pytest
from support.builders import group, seq, tools
from support.executors import composed

from gui.memory import MemoryStores
from gui.tools import default_registry

pytestmark = pytest.mark.usefixtures("on_both_executors")


async def test_a_command_reads_its_step_id_in_its_environment() -> None:
    engine = composed(default_registry(), MemoryStores())
    engine.modes.set("cmd_run", "always-allow")
    await engine.create(seq(group("g", out={"id": "string"}, tools=tools(
        {"tool": "echo", "args": {"value": 1}},
        {"tool": "cmd_run", "args": {"command": "echo $SEQDESK_STEP_ID"}, "as": "id"}))))
    record = await engine.run("s", {})
    assert record.status == "succeeded"
    assert record.outputs == {"id": f"{record.run_id}-0-1"} == {"id": record.groups[0].tools[1].tool_call_id}
