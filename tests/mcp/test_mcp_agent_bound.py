"""`mcp_support.agent` bounds the whole test body: one that runs out fails saying what was bounded and
for how long (an AssertionError chained from the TimeoutError), not with a bare TimeoutError."""

from __future__ import annotations

import asyncio

import mcp_support
import pytest
from mcp_support import agent


async def test_a_body_past_the_bound_fails_naming_the_agent_session(monkeypatch):
    monkeypatch.setattr(mcp_support, "T", 0.5)  # the bound is read when the agent starts
    never = asyncio.Event()
    with pytest.raises(AssertionError, match=r"the MCP agent's session did not finish within 0\.5 s") as failed:
        async with agent("auto") as (_engine, client):
            assert (await client.list_prompts()).prompts == []
            await never.wait()  # a body that never ends
    assert isinstance(failed.value.__cause__, TimeoutError)

