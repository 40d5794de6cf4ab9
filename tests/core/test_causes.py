"""Every stop names its cause, from where it happens to the record: the run, its groups, its tools and
its cancelled requests. The person's Stop is "person"; the app closing is "app_closed", never the
person; a call whose caller gave up is what the caller said it is ("agent_gave_up" for an agent);
a called run cut short by its caller's group says why (the time limit, a failed tool); start-up after
a kill records "app_stopped", an end at the last event and nothing left queued. Records kept before
causes were still read sensibly."""

from __future__ import annotations

import asyncio
import json

from support.builders import group, seq, tools
from support.fakes import Gate
from support.waiting import wait_until, within

from gui.core.asks.elicitation import InboxElicitationHandler
from gui.core.asks.interactions import ElicitationRequest
from gui.core.causes import CAUSES
from gui.core.door.engine import Engine
from gui.core.errors import ToolError
from gui.core.runs.records import RunRecord
from gui.core.tools.registry import Registry
from gui.memory import MemoryInteractionStore, MemoryRunStore, MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0


def make_engine(*extra, runs=None, interactions=None) -> Engine:
    stores = MemoryStores(runs=runs or MemoryRunStore(), interactions=interactions or MemoryInteractionStore())
    return compose_engine(Registry([*builtin_tools(), *extra]), stores, retry_backoff=0.01)


async def waiting_run(engine: Engine) -> str:
    """A run whose first group waits for an approval (cmd_run) and whose second has not started."""
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}},
                                                     {"tool": "echo", "args": {"value": 1}}), parallel=False),
                            group("later")))
    run = await engine.start("s", {})
    await wait_until(lambda: bool(engine.interactions.waiting.records()))
    return run.run_id


def causes_of(record: RunRecord) -> list[tuple[str, str, str | None]]:
    found = [(g.name, g.status, g.cause) for g in record.groups]
    return found + [(t.tool, t.status, t.cause) for g in record.groups for t in g.tools]


async def test_the_persons_stop_is_recorded_as_the_persons_on_the_run_its_tools_and_its_request():
    engine = make_engine()
    run_id = await waiting_run(engine)
    assert await engine.stop(run_id)
    record = await engine.runs.get(run_id)
    assert (record.status, record.cause, record.error) == ("stopped", "person", "stopped by the user")
    assert causes_of(record) == [("ask", "stopped", "person"), ("later", "cancelled", "person"),
                                 ("cmd_run", "cancelled", "person"), ("echo", "cancelled", "person"),
                                 ("echo", "cancelled", "person")]
    [request] = await engine.interaction_store.list()
    assert (request.result.reason, request.result.cause) == ("turn_stopped", "person")


async def test_closing_the_app_is_recorded_as_the_app_closing_never_as_the_person():
    engine = make_engine()
    run_id = await waiting_run(engine)
    await engine.close()
    record = await engine.runs.get(run_id)
    assert (record.status, record.cause, record.error) == ("stopped", "app_closed", "stopped: the app was closed")
    assert {cause for _name, _status, cause in causes_of(record)} == {"app_closed"}
    [request] = await engine.interaction_store.list()
    assert (request.status, request.result.reason, request.result.cause) == ("cancelled", "session_disposed",
                                                                             "app_closed")


async def test_a_call_whose_agent_gave_up_is_recorded_as_the_agent_stopping_waiting():
    engine = make_engine()
    await engine.create(seq(group("ask", tools=tools({"tool": "cmd_run", "args": {"command": "true"}}))))
    call = asyncio.create_task(engine.call("s", {}, gave_up="agent_gave_up"))
    await wait_until(lambda: bool(engine.interactions.waiting.records()))
    call.cancel()
    await within(asyncio.gather(call, return_exceptions=True), "the cancelled call to end")
    [record] = await engine.list_runs()
    assert (record.status, record.cause, record.error) == ("stopped", "agent_gave_up",
                                                           "stopped: the agent stopped waiting")
    [request] = await engine.interaction_store.list()
    assert (request.result.reason, request.result.cause) == ("turn_stopped", "agent_gave_up")


async def test_a_called_run_cut_short_by_its_callers_time_limit_says_so_not_that_a_person_stopped_it():
    gate = Gate()
    engine = make_engine(gate)
    await engine.create(seq(group("inner", tools=tools({"tool": "gate", "args": {"key": "child"}})), name="child"))
    await engine.create(seq(group("outer", timeout="1s", tools=tools({"tool": "seq_call", "args": {"name": "child"}})),
                            name="parent"))
    parent = await engine.runner.run((await engine.resolve("parent"))[0], {})
    assert parent.status == "failed" and parent.groups[0].timed_out
    [child] = [r for r in await engine.list_runs() if r.sequence == "child"]
    assert (child.status, child.cause) == ("stopped", "group_timeout")
    assert child.error == CAUSES["group_timeout"].error


async def test_a_called_run_cut_short_because_another_tool_of_its_callers_group_failed_says_so():
    gate = Gate()
    engine = make_engine(gate)
    await engine.create(seq(group("inner", tools=tools({"tool": "gate", "args": {"key": "child"}})), name="child"))
    await engine.create(seq(group("outer", tools=tools({"tool": "seq_call", "args": {"name": "child"}},
                                                       {"tool": "gate", "args": {"key": "waits", "value": 1}},
                                                       {"tool": "cmd_run", "args": {"command": "exit 3"}})),
                            name="parent"))
    engine.modes.set("cmd_run", "always-allow")
    parent = await engine.runner.run((await engine.resolve("parent"))[0], {})
    assert parent.status == "failed"
    [child] = [r for r in await engine.list_runs() if r.sequence == "child"]
    assert (child.status, child.cause) == ("stopped", "sibling_failed")
    assert parent.groups[0].tools[1].cause == "sibling_failed"  # the gate its failure cancelled


async def test_a_form_a_server_asked_for_is_withdrawn_with_the_cause_of_the_stop():
    engine = make_engine()
    handler = InboxElicitationHandler(engine.interactions)
    asking = asyncio.create_task(handler.handle_elicitation(ElicitationRequest(
        server_name="shop", message="Size?", fields=[], turn_id="r-1")))
    await wait_until(lambda: bool(engine.interactions.waiting.records()))
    engine.interactions.note_ending("r-1", "app_closed")  # what the runner says when the app closes
    asking.cancel()
    await within(asyncio.gather(asking, return_exceptions=True), "the cancelled form to end")
    [request] = await engine.interaction_store.list()
    assert (request.result.reason, request.result.cause) == ("session_disposed", "app_closed")


async def test_start_up_after_a_kill_records_the_app_stopping_the_end_at_the_last_event_and_nothing_queued():
    runs = MemoryRunStore()
    engine = make_engine(runs=runs)
    run_id = await waiting_run(engine)
    left = engine.runner.snapshot(run_id)
    await runs.save(left)  # what the dead app had saved: the request was waiting
    later = make_engine(runs=runs, interactions=engine.interaction_store)
    await later.recover()
    record = await runs.get(run_id)
    assert (record.status, record.cause) == ("interrupted", "app_stopped")
    waited_from = record.groups[0].tools[0].waits[0][0]
    assert record.finished_at >= waited_from > record.created_at  # never "Took 0.0 s"
    assert causes_of(record) == [("ask", "failed", "app_stopped"), ("later", "cancelled", "app_stopped"),
                                 ("cmd_run", "cancelled", "app_stopped"), ("echo", "cancelled", "app_stopped"),
                                 ("echo", "cancelled", "app_stopped")]
    assert not [t for g in record.groups for t in g.tools if t.status in ("queued", "running", "waiting")]
    [request] = await later.interaction_store.list()
    assert (request.result.reason, request.result.cause) == ("runtime_interrupted", "app_stopped")
    await engine.close()


def test_records_kept_before_causes_were_read_with_the_cause_their_words_told():
    def old(status: str, error: str, finished: float) -> RunRecord:
        return RunRecord.model_validate(json.loads(json.dumps({
            "run_id": "r", "sequence": "s", "status": status, "created_at": 100.0, "finished_at": finished,
            "error": error, "groups": [
                {"index": 0, "name": "a", "status": "stopped" if status == "stopped" else "failed",
                 "started_at": 101.0, "reason": "the run was stopped", "tools": [
                     {"index": 0, "tool": "cmd_run", "tool_call_id": "c", "status": "cancelled", "started_at": 101.0,
                      "waits": [[102.0, None]], "error": "cancelled"}]},
                {"index": 1, "name": "b", "status": "waiting" if status == "interrupted" else "cancelled",
                 "tools": [{"index": 0, "tool": "echo", "tool_call_id": "d",
                            "status": "queued" if status == "interrupted" else "cancelled"}]}]})))

    by_person = old("stopped", "stopped by the user", 103.0)
    assert [by_person.cause, *(c for *_, c in causes_of(by_person))] == ["person"] * 5
    closed = old("stopped", "stopped: the app was closed", 103.0)
    assert {closed.cause, *(c for *_, c in causes_of(closed))} == {"app_closed"}
    unknown = old("stopped", "something else", 103.0)
    assert unknown.cause is None  # nothing told who stopped it: nobody is blamed
    killed = old("interrupted", "the app stopped while this run was going on", 100.0)
    assert killed.cause == "app_stopped" and killed.finished_at == 102.0  # its last event, not its start
    assert [t.status for g in killed.groups for t in g.tools] == ["cancelled", "cancelled"]  # none queued
    assert killed.groups[1].status == "cancelled" and killed.groups[0].tools[0].finished_at == 102.0


class FailsWhenOpened(Gate):
    """Waits for its gate, then fails."""

    async def call(self, args, ctx):
        await super().call(args, ctx)
        raise ToolError("it failed")


async def test_a_request_cut_short_because_another_tool_of_its_group_failed_says_so():
    asker, breaker = Gate("asker", approval="tool"), FailsWhenOpened("breaker")
    engine = make_engine(asker, breaker)
    await engine.create(seq(group("g", tools=tools({"tool": "asker", "args": {"key": "a"}},
                                                   {"tool": "breaker", "args": {"key": "b"}}))))
    run = await engine.start("s", {})
    await wait_until(lambda: bool(engine.interactions.waiting.records()))  # the asker waits for its approval
    breaker.gate("b").set()
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "failed"
    assert [(t.tool, t.status, t.cause) for t in record.groups[0].tools] == [("asker", "cancelled", "sibling_failed"),
                                                                            ("breaker", "failed", None)]
    [request] = await engine.interaction_store.list()
    assert (request.status, request.result.reason, request.result.cause) == ("cancelled", "turn_stopped",
                                                                             "sibling_failed")
