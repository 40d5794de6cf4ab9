"""A tool's progress and log on its record and the bus (core, with a fake tool): bounded against a
server that floods them, and typed on the wire."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel
from support.builders import group, seq, tools

from gui.core.events import ToolLog, ToolProgress, parse_event
from gui.core.runs.observed import PROGRESS_PER_SECOND
from gui.core.runs.records import MAX_LOG_LINES
from gui.core.tools.registry import ModelTool, Registry, ToolContext
from gui.memory import MemoryStores
from gui.runtime import compose_engine


class _NoArgs(BaseModel):
    pass


class Flood(ModelTool):
    name = "flood"
    description = "Reports a lot"
    Args: ClassVar[type[BaseModel]] = _NoArgs

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        assert ctx.progress is not None and ctx.log is not None
        for i in range(1, 1001):
            ctx.progress(i, 1000, f"item {i}")
            ctx.log("info", f"line {i}")
        ctx.progress(float("nan"), None, None)  # nonsense is ignored
        return "done"


async def test_a_flood_of_progress_and_log_lines_is_bounded_and_the_last_report_kept():
    engine = compose_engine(Registry([Flood()]), MemoryStores())
    events: list[Any] = []
    engine.bus.subscribe(lambda e: events.append(e) if isinstance(e, ToolProgress | ToolLog) else None)
    await engine.create(seq(group("g", tools=tools({"tool": "flood", "args": {}}))))
    record = await engine.run("s")
    tool = record.groups[0].tools[0]
    assert tool.status == "succeeded"
    assert tool.progress is not None and (tool.progress.progress, tool.progress.message) == (1000.0, "item 1000")
    published = [e for e in events if isinstance(e, ToolProgress)]
    assert 1 <= len(published) <= PROGRESS_PER_SECOND * 2  # the run took well under two seconds
    assert len(tool.log) == MAX_LOG_LINES + 1 and "the rest is not kept" in tool.log[-1].text
    assert len([e for e in events if isinstance(e, ToolLog)]) == MAX_LOG_LINES
    await engine.close()


def test_progress_and_log_events_read_back_from_their_json():
    progress = ToolProgress(run_id="r", group=0, group_name="g", tool=0, tool_name="t", status="running",
                            progress=3.0, total=10.0, message="three")
    line = ToolLog(run_id="r", group=0, group_name="g", tool=0, tool_name="t", status="running", level="info",
                   message="hello")
    assert parse_event(progress.to_json()) == progress
    assert parse_event(line.to_json()) == line
