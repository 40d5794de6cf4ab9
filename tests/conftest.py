"""Test-wide settings: the app's entry file runs with in-memory stores unless a test says otherwise."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("SEQDESK_MEMORY", "1")

if TYPE_CHECKING:
    from gui.app import EngineSlot
    from gui.core.engine import Engine


@pytest.fixture
async def current_engine() -> AsyncIterator[Engine]:
    """An in-memory engine with the built-in tools (a test's API is handed it through `engine_slot`),
    closed afterwards."""
    from gui.core.engine import Engine
    from gui.tools import default_registry

    engine = Engine(registry=default_registry())
    yield engine
    await engine.close()


@pytest.fixture
def engine_slot(current_engine: Engine) -> EngineSlot:
    """The slot a test's API is handed: it holds `current_engine`; empty it to see a closed app."""
    from gui.app import EngineSlot

    return EngineSlot(current_engine)
