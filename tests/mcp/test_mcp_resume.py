"""`seq_resume`: an agent resumes a failed run; the kept groups do not run again, refusals are sentences."""

from __future__ import annotations

import json

from mcp_support import agent, text_of

from gui.tools.echo import Echo


class LateEcho(Echo):
    name = "late.echo"


TWO = {"name": "two-step", "description": "", "groups": [
    {"name": "first", "out": {"a": "number"}, "tools": json.dumps({"tool": "echo", "args": {"value": 1}, "as": "a"})
     + " ;"},
    {"name": "second", "in": {"a": "number"}, "out": {"b": "number"},
     "tools": json.dumps({"tool": "late.echo", "args": {"value": "$args.a"}, "as": "b"}) + " ;"}]}


async def test_an_agent_resumes_a_failed_run_and_a_second_resume_is_refused_with_the_reason():
    async with agent("auto") as (engine, client):
        assert not (await client.call_tool("seq_create", TWO)).is_error
        first = (await client.call_tool("seq_run", {"name": "two-step"})).structured_content
        assert first["status"] == "failed"
        engine.registry.add(LateEcho())
        resumed = await client.call_tool("seq_resume", {"run_id": first["run_id"]})
        assert not resumed.is_error, text_of(resumed)
        body = resumed.structured_content
        assert (body["status"], body["outputs"], body["resumed_from"]) == ("succeeded", {"a": 1, "b": 1},
                                                                           first["run_id"])
        assert body["groups"][0]["kept_from"] == first["run_id"]
        again = await client.call_tool("seq_resume", {"run_id": first["run_id"]})
        assert again.is_error and "the run was not resumed: run" in text_of(again)
        assert "resumed already" in text_of(again)
        missing = await client.call_tool("seq_resume", {"run_id": "nope"})
        assert missing.is_error and text_of(missing) == "there is no run nope"
