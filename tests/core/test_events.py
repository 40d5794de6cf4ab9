"""Typed events: each kind has its fields, the wire shape reads back as the same kind, and the state
words (timed out, denied) are fields the runner sets, not text a reader has to search."""

from __future__ import annotations

import asyncio

import pytest
from support.builders import group, seq, tools
from support.fakes import Gate
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.events import (
    EVENT_TYPES,
    Event,
    GroupFinished,
    InteractionCreated,
    RunStarted,
    ToolFinished,
    UnknownEvent,
    parse_event,
)
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0


def test_every_kind_reads_back_from_its_json_as_the_same_event():
    samples: list[Event] = [
        RunStarted(run_id="r", sequence="s", groups=["g"], args={"x": 1}, seq=3, at=1.5),
        ToolFinished(run_id="r", group=0, group_name="g", tool=1, tool_name="cmd_run", status="failed", error="no",
                     denied=True),
        InteractionCreated(run_id="r", interaction_id="i", kind="approval", record={"status": "pending"}),
    ]
    for event in samples:
        assert parse_event(event.to_json()) == event
    assert set(EVENT_TYPES) >= {"run.started", "run.finished", "group.started", "group.finished", "group.skipped",
                                "tool.started", "tool.waiting", "tool.resumed", "tool.retrying", "tool.finished",
                                "interaction.created", "interaction.ended", "sequence.saved", "sequence.deleted",
                                "settings.changed"}


def test_an_unknown_kind_or_a_kind_missing_its_fields_is_kept_untyped_and_nothing_else_is_an_event():
    newer = parse_event({"type": "run.paused", "run_id": "r", "data": {"why": "x"}})
    assert isinstance(newer, UnknownEvent) and newer.type == "run.paused" and newer.data == {"why": "x"}
    short = parse_event({"type": "tool.finished", "data": {"status": "failed"}})
    assert isinstance(short, UnknownEvent) and short.type == "tool.finished"
    assert parse_event([1, 2]) is None and parse_event({"data": {}}) is None


def make_engine(*extra) -> Engine:
    return compose_engine(Registry([*builtin_tools(), *extra]), MemoryStores(), retry_backoff=0.01)


async def test_a_group_whose_time_ran_out_says_so_in_its_fields():
    engine = make_engine(Gate())
    seen: list[Event] = []
    engine.subscribe(seen.append)
    await engine.create(seq(group("slow", timeout="50ms", tools=tools({"tool": "gate", "args": {"key": "never"}}))))
    record = await within(engine.run("s", {}), "the run's end")
    assert record.groups[0].timed_out and record.groups[0].tools[0].timed_out
    finished = [e for e in seen if type(e) is GroupFinished]
    assert finished and finished[0].timed_out and finished[0].status == "failed"


@pytest.mark.parametrize("answer", [ApprovalResponse(decision="denied", reason="not now")])
async def test_a_denied_tool_says_so_in_its_fields(answer):
    engine = make_engine()
    seen: list[Event] = []
    asked: asyncio.Queue[InteractionCreated] = asyncio.Queue()
    engine.subscribe(seen.append)
    engine.subscribe(lambda e: asked.put_nowait(e) if isinstance(e, InteractionCreated) else None)
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}}))))
    run = await engine.start("s", {})
    request = await within(asked.get(), "the approval request")
    await engine.respond(request.interaction_id, answer)
    record = await engine.runner.wait(run.run_id, T)
    assert record.groups[0].tools[0].denied and not record.groups[0].tools[0].timed_out
    ends = [e for e in seen if isinstance(e, ToolFinished)]
    assert ends and ends[-1].denied and ends[-1].error == "denied by the user: not now"
