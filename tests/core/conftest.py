"""Fixtures for the interaction service's tests: a bus, what it saw, a store, the service."""

from __future__ import annotations

import pytest

from gui.core.asks.service import InteractionService
from gui.core.events import Event, EventBus
from gui.memory import MemoryApprovalModes, MemoryInteractionStore


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def events(bus: EventBus) -> list[Event]:
    seen: list[Event] = []
    bus.subscribe(seen.append)
    return seen


@pytest.fixture
def store() -> MemoryInteractionStore:
    return MemoryInteractionStore()


@pytest.fixture
def service(store: MemoryInteractionStore, bus: EventBus) -> InteractionService:
    return InteractionService(store, bus, modes=MemoryApprovalModes())
