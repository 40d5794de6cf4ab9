"""Shared pieces of the built-in tool tests: a plain tool context."""

from __future__ import annotations

import pytest

from gui.core.tools.registry import ToolContext


@pytest.fixture
def ctx() -> ToolContext:
    return ToolContext(run_id="run-1", tool_call_id="call-1", tool_name="tool")
