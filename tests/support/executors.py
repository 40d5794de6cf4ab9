"""The same scenarios on both executors: `executor` gives each test the in-process runner (None) and
then a Temporal one (its address, on the session's dev server, with a task queue of the test's own,
so the workers of two tests never take each other's steps).

A module runs its scenarios on both with `pytestmark = pytest.mark.usefixtures("on_both_executors")`
and builds its engines with `composed` (in place of `compose_engine`); the engines are closed after
the test (a Temporal one stops its worker). A test that is about the in-process runner alone says
`@pytest.mark.parametrize("executor", [None], ids=["in-process"])`.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from gui.core.door.engine import Engine
from gui.core.tools import Registry

EXECUTORS = ["in-process", "temporal"]


@pytest.fixture(params=EXECUTORS)
def executor(request: pytest.FixtureRequest) -> str | None:
    if request.param == "in-process":
        return None
    server = request.getfixturevalue("temporal_server")
    return f"{server.url}?queue=test-{uuid.uuid4().hex[:12]}"


class _Chosen:
    """The executor of the test running, and the engines it made (one test at a time per process)."""

    executor: str | None = None
    made: list[Engine] | None = None


CHOSEN = _Chosen()


@pytest.fixture
async def on_both_executors(executor: str | None) -> Any:
    CHOSEN.executor, CHOSEN.made = executor, []
    try:
        yield executor
    finally:
        made, CHOSEN.executor, CHOSEN.made = CHOSEN.made or [], None, None
        for engine in made:
            if not engine.closed:
                await engine.close()


def composed(registry: Registry, stores: Any, **parts: Any) -> Engine:
    """`compose_engine` on the executor of the test running (closed after it)."""
    from gui.runtime import compose_engine

    engine = compose_engine(registry, stores, executor=CHOSEN.executor, **parts)
    if CHOSEN.made is not None:
        CHOSEN.made.append(engine)
    return engine
