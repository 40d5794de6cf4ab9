"""The event bus across two engines on one PostgreSQL database (`gui.pgstore.event_relay`): the steps of
a run that runs in one process are published in the other, an event too large for one notice arrives
whole, and nothing is sent back to the process it came from."""

from __future__ import annotations

import pytest
from support.engine import next_pending_request
from support.waiting import wait_until, within

from gui.core.events import Event, GroupStarted, ToolFinished, ToolLog, ToolStarted, ToolWaiting
from gui.runtime import open_runtime

pytestmark = pytest.mark.postgres
T = 30.0
TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort",
    "tools": '{"tool": "cmd_run", "args": {"command": "echo hi there"}} ;'}]}


async def test_the_steps_of_a_run_in_one_process_are_published_in_the_other(seqdesk_database_url):
    here, there = await open_runtime(store=seqdesk_database_url), await open_runtime(store=seqdesk_database_url)
    try:
        seen: list[Event] = []
        there.engine.subscribe(seen.append)
        await here.engine.create(TREE)
        asked = next_pending_request(here.engine)
        run = await here.engine.start("asks", {})
        iid = await within(asked, "the run's approval request")
        await here.engine.respond(iid, {"kind": "approval", "decision": "approved"})
        assert (await here.engine.runner.wait(run.run_id, T)).status == "succeeded"

        def steps() -> list[str]:
            return [e.type for e in seen if e.run_id == run.run_id and isinstance(
                e, GroupStarted | ToolStarted | ToolWaiting | ToolFinished)]

        await wait_until(lambda: "tool.finished" in steps(), "the tool's end told to the other process", timeout=T)
        assert steps() == ["group.started", "tool.started", "tool.waiting", "tool.finished"]
        finished = next(e for e in seen if isinstance(e, ToolFinished) and e.run_id == run.run_id)
        assert (finished.tool_name, finished.status, finished.error) == ("cmd_run", "succeeded", None)
    finally:
        await here.close()
        await there.close()


async def test_an_event_larger_than_a_notice_arrives_whole_and_is_not_sent_back(seqdesk_database_url):
    here, there = await open_runtime(store=seqdesk_database_url), await open_runtime(store=seqdesk_database_url)
    try:
        heard_here: list[ToolLog] = []
        heard_there: list[ToolLog] = []
        here.engine.subscribe(lambda e: heard_here.append(e) if isinstance(e, ToolLog) else None)
        there.engine.subscribe(lambda e: heard_there.append(e) if isinstance(e, ToolLog) else None)
        message = "línea " * 5000 + "\udc80 end"  # 30,000 characters, some not ASCII, a lone surrogate
        for n in range(3):
            here.engine.bus.publish(ToolLog, f"run{n}", group=0, group_name="g", tool=0, tool_name="t",
                                    status="running", level="info", message=f"{n} {message}")
        await wait_until(lambda: len(heard_there) == 3, "three long log lines told to the other process", timeout=T)
        assert [e.message for e in heard_there] == [f"{n} {message}" for n in range(3)]
        assert [e.run_id for e in heard_there] == ["run0", "run1", "run2"]
        there.engine.bus.publish(ToolLog, "back", group=0, group_name="g", tool=0, tool_name="t", status="running",
                                 level="info", message="from there")
        await wait_until(lambda: any(e.run_id == "back" for e in heard_here), "the other process's line told here")
        assert [e.run_id for e in heard_here] == ["run0", "run1", "run2", "back"]  # none came back twice
        assert [e.run_id for e in heard_there] == ["run0", "run1", "run2", "back"]
    finally:
        await here.close()
        await there.close()
