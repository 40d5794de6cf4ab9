"""The same scenarios on both executors: `executor` gives each test the in-process runner (None) and
then a Temporal one (its address, on the session's dev server, with a task queue of the test's own,
so the workers of two tests never take each other's steps). `engines` closes what a test made.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from gui.core.door.engine import Engine

EXECUTORS = ["in-process", "temporal"]


@pytest.fixture(params=EXECUTORS)
def executor(request: pytest.FixtureRequest) -> str | None:
    if request.param == "in-process":
        return None
    server = request.getfixturevalue("temporal_server")
    return f"{server.url}?queue=test-{uuid.uuid4().hex[:12]}"


class Engines:
    """The engines a test made, to close after it (a Temporal one stops its worker)."""

    def __init__(self) -> None:
        self.made: list[Engine] = []

    def keep(self, engine: Engine) -> Engine:
        self.made.append(engine)
        return engine


@pytest.fixture
async def engines() -> AsyncIterator[Engines]:
    kept = Engines()
    yield kept
    for engine in kept.made:
        await engine.close()
