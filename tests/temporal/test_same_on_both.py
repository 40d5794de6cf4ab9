"""Whichever executor ran it, a run leaves the same record and the same events: one sequence (a
condition that skips, typed outputs flowing between groups, a gathered group, a missing tool marked
degraded) run in process and on Temporal, compared field by field (ids and times aside)."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from support.builders import group, seq, tools
from support.temporal import TemporalServer

from gui.core.events import Event
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

TIMES = {"run_id", "created_at", "started_at", "finished_at", "tool_call_id", "at", "seq", "waits", "reused_from"}


def shape(value: Any) -> Any:
    """The value without its ids and times."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return value


async def run_on(executor: str | None) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    engine = compose_engine(default_registry(), MemoryStores(), executor=executor)
    seen: list[Event] = []
    engine.bus.subscribe(seen.append)
    try:
        await engine.create(seq(
            group("first", **{"in": {"who": "string"}}, out={"greeting": "string"},
                  tools=tools({"tool": "echo", "args": {"value": "hello $args.who"}, "as": "greeting"})),
            group("never", **{"in": {"who": "string"}}, when='$args.who == "nobody"',
                  tools=tools({"tool": "echo", "args": {"value": 1}})),
            group("fan", **{"in": {"greeting": "string"}}, out={"all": "array"}, missing="degrade",
                  tools=tools(*({"tool": "echo", "args": {"value": f"$args.greeting {n}"}, "as": "all"}
                                for n in range(3)), {"tool": "no_such_tool"}))))
        record = await engine.run("s", {"who": "Ada"})
    finally:
        await engine.close()
    events = [(e.type, shape({k: v for k, v in dataclasses.asdict(e).items() if k != "run_id"})) for e in seen
              if e.run_id == record.run_id]
    return shape(record.model_dump(by_alias=True)), events


async def test_a_run_leaves_the_same_record_and_events_on_both_executors(temporal_server: TemporalServer) -> None:
    in_process, events_here = await run_on(None)
    on_temporal, events_there = await run_on(f"{temporal_server.url}?queue=same-{uuid.uuid4().hex[:8]}")
    assert in_process["status"] == "degraded"
    assert in_process["outputs"]["all"] == ["hello Ada 0", "hello Ada 1", "hello Ada 2"]
    assert on_temporal == in_process
    order = lambda events: sorted(events, key=repr)  # noqa: E731  gathered tools end in any order
    assert order(events_there) == order(events_here)
    assert [t for t, _ in events_there][:3] == [t for t, _ in events_here][:3] == ["run.started", "group.started",
                                                                                   "tool.started"]
