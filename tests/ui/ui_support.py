"""What several page tests share: waiting for the engine the app opens at start-up."""

from __future__ import annotations

import pytest
from nicegui.testing import User

from gui import runtime


@pytest.fixture(autouse=True)
async def engine_open(user: User) -> None:
    """App start-up opens the engine in a task of its own: wait for it (bounded) before acting.

    Autouse in every test module that imports it (`from ui_support import engine_open`)."""
    await runtime.wait_current(timeout=5)
