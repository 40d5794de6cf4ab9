"""What several page tests share: waiting for the engine the app opens at start-up."""

from __future__ import annotations

import pytest
from nicegui import app
from nicegui.testing import User

from gui.app import context_of
from gui.context import AppContext
from gui.mcp.config import McpSettingsStore


def app_ctx() -> AppContext:
    """What the composition root built for the app under test (its engine, runtime, notices)."""
    return context_of(app)


@pytest.fixture(autouse=True)
async def engine_open(user: User) -> None:
    """App start-up opens the engine in a task of its own: wait for it (bounded) before acting.

    Autouse in every test module that imports it (`from ui_support import engine_open`)."""
    await app_ctx().wait_open(timeout=5)


def mcp_store() -> McpSettingsStore:
    """Where the app under test keeps its MCP servers (to check what the door wrote)."""
    store = app_ctx().runtime.mcp_settings if app_ctx().runtime is not None else None
    assert store is not None, "the app under test keeps no MCP servers"
    return store
