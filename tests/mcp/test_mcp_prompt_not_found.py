"""`prompts/get` of a prompt the server does not serve: invalid params (-32602) with a sentence, on
either protocol (the SDK's own answer had no JSON-RPC code, or was an internal error under 2026-07-28;
the conformance scenario input-required-result-non-tool-request met the latter)."""

from __future__ import annotations

import pytest
from mcp import MCPError
from mcp_support import agent
from mcp_types.jsonrpc import INVALID_PARAMS


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unknown_prompt_is_invalid_params_with_a_sentence(mode):
    async with agent(mode) as (_engine, client):
        assert (await client.list_prompts()).prompts == []
        with pytest.raises(MCPError) as refused:
            await client.get_prompt("test_simple_prompt")
    assert refused.value.code == INVALID_PARAMS
    assert "there is no prompt named 'test_simple_prompt'" in refused.value.message
