"""The runner's rules (SPEC §2), with fake tools driven by events and the in-memory stores, each on both
executors: in process and on Temporal (`support.executors`)."""

from __future__ import annotations

import json

import pytest
from support.builders import group, seq, tools
from support.executors import composed
from support.fakes import Flaky, Gate, Untyped
from support.waiting import wait_until, within

from gui.core.asks.interactions import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.sequences.run_args import RunArgsError
from gui.core.sequences.validator import parse_sequence
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.tools import builtin_tools

T = 5.0  # every wait is bounded


pytestmark = pytest.mark.usefixtures("on_both_executors")


def make_engine(*extra) -> Engine:
    return composed(Registry([*builtin_tools(), *extra]), MemoryStores(), retry_backoff=0.01)


async def save(engine: Engine, doc) -> str:
    sequence, _ = await engine.create(doc)
    return sequence.name


def one_group(*tool_objs, **fields):
    return seq(group("g", tools=tools(*tool_objs), **fields))


async def test_groups_run_in_order_and_outputs_flow_between_them():
    engine = make_engine()
    a = group("a", **{"in": {"who": "string"}}, out={"greeting": "string"},
              tools=tools({"tool": "echo", "args": {"value": "hello $args.who"}, "as": "greeting"}))
    b = group("b", **{"in": {"greeting": "string"}}, out={"loud": "object"},
              tools=tools({"tool": "echo", "args": {"value": {"text": "$args.greeting"}}, "as": "loud"}))
    await save(engine, seq(a, b))
    record = await engine.run("s", {"who": "Ada"})
    assert record.status == "succeeded"
    assert record.outputs == {"greeting": "hello Ada", "loud": {"text": "hello Ada"}}
    assert record.groups[1].tools[0].args == {"value": {"text": "hello Ada"}}


async def test_tools_of_a_group_run_in_parallel():
    gate = Gate()
    engine = make_engine(gate)
    await save(engine, one_group(*({"tool": "gate", "args": {"key": k}} for k in "abc")))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 3)
    for k in "abc":
        gate.gate(k).set()
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded" and gate.max_running == 3


async def test_unsafe_tool_makes_the_group_serial_and_says_why():
    gate, unsafe = Gate(), Gate("unsafe", concurrency_safe=False)
    engine = make_engine(gate, unsafe)
    await save(engine, one_group({"tool": "gate", "args": {"key": "a"}}, {"tool": "unsafe", "args": {"key": "b"}}))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.started == ["a"])
    assert unsafe.started == []  # b waits for a
    gate.gate("a").set()
    await wait_until(lambda: unsafe.started == ["b"])
    unsafe.gate("b").set()
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded"
    assert "unsafe" in record.groups[0].serial_reason


async def test_parallel_false_runs_in_order():
    gate = Gate()
    engine = make_engine(gate)
    await save(engine, one_group({"tool": "gate", "args": {"key": "a"}}, {"tool": "gate", "args": {"key": "b"}},
                                 parallel=False))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.started == ["a"])
    gate.gate("a").set()
    await wait_until(lambda: gate.started == ["a", "b"])
    gate.gate("b").set()
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded" and "parallel is off" in record.groups[0].serial_reason


async def test_false_condition_skips_the_group_with_the_reason():
    engine = make_engine()
    await save(engine, one_group({"tool": "echo", "args": {"value": 1}}, **{"in": {"n": "number"}},
                                 when="$args.n > 3"))
    record = await engine.run("s", {"n": 1})
    assert record.status == "succeeded"
    assert record.groups[0].status == "skipped" and "$args.n > 3" in record.groups[0].reason
    assert record.groups[0].tools[0].status == "skipped"


async def test_condition_evaluation_error_fails_the_run_rather_than_skipping():
    engine = make_engine()
    await save(engine, one_group({"tool": "echo", "args": {"value": 1}}, **{"in": {"s": "string"}},
                                 when="$args.s > 3"))
    record = await engine.run("s", {"s": "x"})
    assert record.status == "failed"
    assert record.groups[0].status == "failed" and "could not be evaluated" in record.groups[0].reason


async def test_input_missing_because_its_provider_was_skipped_fails_clearly():
    engine = make_engine()
    a = group("a", **{"in": {"go": "boolean"}}, out={"x": "string"}, when="$args.go == true",
              tools=tools({"tool": "echo", "args": {"value": "v"}, "as": "x"}))
    b = group("b", **{"in": {"x": "string"}})
    await save(engine, seq(a, b))
    record = await engine.run("s", {"go": False})
    assert record.status == "failed"
    assert "'x' has no value" in record.groups[1].reason


async def test_args_are_checked_against_the_signature_before_anything_runs():
    engine = make_engine()
    await save(engine, one_group({"tool": "echo", "args": {"value": "$args.n"}}, **{"in": {"n": "number"}}))
    with pytest.raises(RunArgsError) as info:
        await engine.run("s", {"n": "three", "extra": 1})
    assert len(info.value.problems) == 2
    assert await engine.list_runs() == []


async def test_array_slot_collects_results_in_tool_order_whatever_the_finish_order():
    gate = Gate()
    engine = make_engine(gate)
    await save(engine, one_group(*({"tool": "gate", "args": {"key": k}, "as": "all"} for k in "abc"),
                                 out={"all": "array"}))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 3)
    for k in "cba":
        gate.gate(k).set()
        await wait_until(lambda k=k: k not in [t for t in gate.started if gate.running] or True)
    record = await engine.runner.wait(run.run_id, T)
    assert record.outputs == {"all": ["a", "b", "c"]}


async def test_result_of_the_wrong_type_for_its_slot_fails_the_tool():
    engine = make_engine(Untyped())  # a result type known only at run time (a known one is refused at save)
    await save(engine, one_group({"tool": "untyped", "args": {"value": 3}, "as": "x"}, out={"x": "string"}))
    record = await engine.run("s", {})
    assert record.status == "failed"
    assert record.groups[0].tools[0].error == ("it gave back a number, but the output 'x' holds text: "
                                               "change the output's type to match")


async def test_text_given_back_to_an_object_output_fails_the_tool_saying_to_make_it_text():
    engine = make_engine(Untyped())  # as an MCP tool without an output schema that sent no pictures
    await save(engine, one_group({"tool": "untyped", "args": {"value": "plain words"}, "as": "x"}, out={"x": "object"}))
    record = await engine.run("s", {})
    assert record.status == "failed"
    assert record.groups[0].tools[0].error == ("it gave back text, but the output 'x' holds an object: make 'x' "
                                               "text (string) to keep this result")


@pytest.mark.parametrize(("missing", "run_status", "tool_status"),
                         [("fail", "failed", "failed"), ("skip", "succeeded", "skipped"),
                          ("degrade", "degraded", "degraded")])
async def test_missing_tool_policy(missing, run_status, tool_status):
    engine = make_engine()
    await save(engine, one_group({"tool": "nowhere.tool"}, {"tool": "echo", "args": {"value": 1}}, missing=missing))
    record = await engine.run("s", {})
    assert record.status == run_status
    assert record.groups[0].tools[0].status == tool_status
    assert record.groups[0].tools[1].status in (("succeeded",) if missing != "fail" else ("succeeded", "cancelled"))


async def test_on_error_abort_cancels_siblings_and_fails_the_run():
    gate = Gate()
    engine = make_engine(gate, Flaky())
    await save(engine, seq(group("g", tools=tools({"tool": "gate", "args": {"key": "slow"}},
                                                  {"tool": "flaky", "args": {"fail_times": 5}})),
                           group("never")))
    record = await engine.run("s", {})
    assert record.status == "failed"
    tools_ = record.groups[0].tools
    assert tools_[1].status == "failed" and tools_[0].status == "cancelled"
    assert gate.cancelled == ["slow"]
    assert record.groups[1].status == "cancelled"


async def test_on_error_continue_goes_on_and_marks_the_run_degraded():
    engine = make_engine(Flaky())
    await save(engine, seq(group("g", on_error="continue", tools=tools({"tool": "flaky", "args": {"fail_times": 5}},
                                                                       {"tool": "echo", "args": {"value": 1}})),
                           group("next")))
    record = await engine.run("s", {})
    assert record.status == "degraded"
    assert record.groups[0].tools[1].status == "succeeded"
    assert record.groups[1].status == "succeeded"


async def test_on_error_retry_tries_three_times_then_succeeds_or_aborts():
    flaky = Flaky()
    engine = make_engine(flaky)
    await save(engine, one_group({"tool": "flaky", "args": {"fail_times": 2}}, on_error="retry"))
    record = await engine.run("s", {})
    assert record.status == "succeeded" and record.groups[0].tools[0].attempts == 3
    flaky.calls = 0
    await save(engine, one_group({"tool": "flaky", "args": {"fail_times": 3}}, on_error="retry"))
    record = await engine.run("s", {})
    assert record.status == "failed" and record.groups[0].tools[0].attempts == 3


async def test_group_timeout_cancels_running_tools():
    gate = Gate()
    engine = make_engine(gate)
    await save(engine, one_group({"tool": "gate", "args": {"key": "forever"}}, timeout="50ms"))
    record = await within(engine.run("s", {}), "the run's end")
    assert record.status == "failed"
    assert "timed out after 50ms" in record.groups[0].reason
    assert "time limit" in record.groups[0].tools[0].error
    assert gate.cancelled == ["forever"]


async def test_stop_cancels_tools_and_pending_requests():
    gate = Gate()
    engine = make_engine(gate)
    await save(engine, one_group({"tool": "gate", "args": {"key": "x"}},
                                 {"tool": "cmd_run", "args": {"command": "echo hi"}}))
    run = await engine.start("s", {})
    await wait_until(lambda: gate.running == 1)
    await wait_until(lambda: engine.runner.snapshot(run.run_id).groups[0].tools[1].status == "waiting")
    assert await engine.stop(run.run_id)
    record = await engine.get_run(run.run_id)
    assert record.status == "stopped"
    assert gate.cancelled == ["x"]
    interactions = await engine.interaction_store.list()
    assert [(r.status, r.result.reason) for r in interactions] == [("cancelled", "turn_stopped")]


async def test_approval_waits_for_a_person_and_a_denial_fails_with_the_reason():
    engine = make_engine()
    await save(engine, one_group({"tool": "cmd_run", "args": {"command": "echo approved"}, "as": "out"},
                                 out={"out": "string"}))
    events = []
    engine.bus.subscribe(lambda e: events.append(e.type))
    run = await engine.start("s", {})
    await wait_until(lambda: "tool.waiting" in events)
    [pending] = await engine.interactions.pending()
    assert pending.request.command == "echo approved"
    await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded" and record.outputs == {"out": "approved"}

    run = await engine.start("s", {})
    await wait_until(lambda: len(events) and engine.runner.snapshot(run.run_id) is not None
                   and engine.runner.snapshot(run.run_id).groups[0].tools[0].status == "waiting")
    [pending] = await engine.interactions.pending()
    await engine.interactions.respond(pending.interaction_id,
                                      ApprovalResponse(decision="denied", reason="not on prod"))
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "failed"
    assert record.groups[0].tools[0].error == "denied by the user: not on prod"


async def test_always_allow_is_remembered_and_auto_approvals_recorded():
    engine = make_engine()
    await save(engine, one_group({"tool": "cmd_run", "args": {"command": "true"}}))
    run = await engine.start("s", {})
    await wait_until(lambda: engine.runner.snapshot(run.run_id) is not None
                   and engine.runner.snapshot(run.run_id).groups[0].tools[0].status == "waiting")
    [pending] = await engine.interactions.pending()
    await engine.interactions.respond(pending.interaction_id,
                                      ApprovalResponse(decision="approved", always_allow=True))
    await engine.runner.wait(run.run_id, T)
    record = await within(engine.run("s", {}), "the second run's end")
    assert record.status == "succeeded"
    autos = [r for r in await engine.interaction_store.list() if r.auto]
    assert len(autos) == 1 and autos[0].status == "resolved"


async def test_pending_approval_does_not_hold_up_its_siblings():
    engine = make_engine()
    await save(engine, one_group({"tool": "cmd_run", "args": {"command": "true"}},
                                 {"tool": "echo", "args": {"value": 7}, "as": "x"}, out={"x": "number"}))
    run = await engine.start("s", {})
    await wait_until(lambda: engine.runner.snapshot(run.run_id) is not None
                   and engine.runner.snapshot(run.run_id).groups[0].tools[1].status == "succeeded")
    assert engine.runner.snapshot(run.run_id).groups[0].tools[0].status == "waiting"
    await engine.stop(run.run_id)


async def test_group_deadline_caps_the_approval_expiry():
    engine = make_engine()
    await save(engine, one_group({"tool": "cmd_run", "args": {"command": "true"}}, timeout="1h"))
    run = await engine.start("s", {})
    await wait_until(lambda: engine.runner.snapshot(run.run_id).groups[0].tools[0].status == "waiting")
    [pending] = await engine.interactions.pending()
    assert pending.request.expires_at is not None
    assert pending.request.expires_at <= (run.created_at + 3600 + 1) * 1000
    await engine.stop(run.run_id)


async def test_seq_call_runs_another_saved_sequence_and_returns_its_outputs():
    engine = make_engine()
    await save(engine, seq(group("inner", **{"in": {"n": "number"}}, out={"r": "number"},
                                 tools=tools({"tool": "echo", "args": {"value": "$args.n"}, "as": "r"})), name="child"))
    await save(engine, seq(group("outer", out={"res": "object"},
                                 tools=tools({"tool": "seq_call", "args": {"name": "child", "args": {"n": 4}},
                                              "as": "res"})), name="parent"))
    record = await engine.run("parent", {})
    assert record.status == "succeeded", record
    assert record.outputs == {"res": {"r": 4}}


async def test_call_and_when_call_by_group_name():
    engine = make_engine()
    await save(engine, seq(group("double", **{"in": {"n": "number"}}, out={"r": "number"},
                                 tools=tools({"tool": "echo", "args": {"value": "$args.n"}, "as": "r"}))))
    record = await engine.call("double", {"n": 2})
    assert record.target == "double" and record.outputs == {"r": 2}
    assert await engine.when_call("double", "$args.n > 5", {"n": 2}) is None
    assert (await engine.when_call("double", "$args.n > 1", {"n": 2})).status == "succeeded"


async def test_seed_example_runs_end_to_end_with_cmd_run_when_always_allowed():
    from gui.core.sequences.help import SEED_EXAMPLE

    engine = make_engine()
    engine.modes.set("cmd_run", "always-allow")
    doc = json.loads(SEED_EXAMPLE.replace("journalctl -x", "echo detail"))
    await engine.create(doc)
    record = await within(engine.run("巡检三节点", {"host": "node-a"}), "the seed example's run to end")
    assert record.status == "succeeded", record.error
    assert set(record.outputs) == {"summary", "load", "detail"}
    assert record.outputs["detail"] == "detail"


async def test_events_cover_every_transition():
    engine = make_engine()
    seen = []
    await save(engine, seq(group("a"), group("b", **{"in": {"n": "number"}}, when="$args.n > 1")))
    engine.bus.subscribe(lambda e: seen.append(e.type))
    await engine.run("s", {"n": 0})
    assert seen[0] == "run.started" and seen[-1] == "run.finished"
    for kind in ("group.started", "group.finished", "group.skipped", "tool.started", "tool.finished"):
        assert kind in seen


async def test_sequence_parsed_once_is_not_parsed_again_at_run_time(monkeypatch):
    import gui.core.sequences.validator as validator

    engine = make_engine()
    tree = parse_sequence(seq(group("g")))
    monkeypatch.setattr(validator, "check_document", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    record = await engine.runner.run(tree, {})
    assert record.status == "succeeded"


async def test_event_stream_receives_everything_published_after_it_was_opened():
    from gui.core.events import EventBus, SequenceDeleted, SequenceSaved

    bus = EventBus()
    async with bus.stream() as stream:
        bus.publish(SequenceSaved, "r1", name="a")
        bus.publish(SequenceDeleted, "r1", name="b")
        got = [await within(stream.__anext__(), "the next event") for _ in range(2)]
    assert [e.type for e in got] == ["sequence.saved", "sequence.deleted"]
    bus.publish(SequenceSaved, name="c")  # after close: nobody listens, nothing breaks


async def test_a_tools_arguments_are_validated_once_per_call():
    from pydantic import model_validator

    from gui.tools._args import ToolArgs, parse_args
    from gui.tools.echo import Echo

    checks: list[int] = []

    class CountedArgs(ToolArgs):
        value: int

        @model_validator(mode="after")
        def _count(self) -> CountedArgs:
            checks.append(self.value)
            return self

    class Counted(Echo):
        name = "counted"
        Args = CountedArgs

        async def call(self, args, ctx):  # type: ignore[no-untyped-def]
            return parse_args(self, CountedArgs, args).value

    engine = make_engine(Counted())
    doc = seq(group("g", out={"v": "number"}, tools=tools({"tool": "counted", "args": {"value": 4}, "as": "v"})))
    record = await engine.runner.run(parse_sequence(doc), {})
    assert record.status == "succeeded" and record.groups[0].tools[0].result == 4
    assert record.groups[0].tools[0].args == {"value": 4} and type(record.groups[0].tools[0].args) is dict
    assert checks == [4]


async def test_tool_call_context():
    """The context a tool is called with has every one of its fields set, each to what the call is
    (the in-process runner sets them one by one, not through the dataclass's `__init__`)."""
    from dataclasses import fields

    from gui.core.tools.registry import ToolContext

    seen: list[ToolContext] = []

    class Looks(Untyped):
        name = "looks"

        async def call(self, args, ctx):  # type: ignore[no-untyped-def]
            seen.append(ctx)
            ctx.extra["mine"] = True  # each call its own
            return None

    engine = make_engine(Looks())
    doc = seq(group("g", timeout="30s", tools=tools({"tool": "looks"}, {"tool": "looks"})))
    record = await engine.runner.run(parse_sequence(doc), {})
    assert record.status == "succeeded"
    first, second = seen
    values = {f.name: getattr(first, f.name) for f in fields(ToolContext)}  # AttributeError for one unset
    assert values["run_id"] == record.run_id and values["tool_name"] == "looks"
    assert values["tool_call_id"] == record.groups[0].tools[0].tool_call_id != second.tool_call_id
    assert (values["sequence_name"], values["group_name"], values["depth"]) == ("s", "g", 0)
    assert values["deadline"] is not None and values["approved"] is None and values["approval"] is None
    assert values["interactions"] is not None and values["elicitation"] is not None
    assert callable(values["progress"]) and callable(values["log"]) and callable(values["record_process"])
    assert values["extra"] == {"mine": True} and second.extra == {"mine": True} and first.extra is not second.extra


@pytest.mark.parametrize("executor", [None], ids=["in-process"])  # (the loop of the process that runs it)
async def test_a_run_of_the_most_groups_never_holds_the_loop_long():
    """1,000 groups whose tools end as they start, on a sequence just saved (no fingerprint known yet):
    its records are made in a worker thread, and its groups give the loop a turn every few ms, so every
    other request is answered meanwhile (a page, an answer)."""
    from support.loop_watch import LoopWatch

    from gui.core.sequences.limits import MAX_GROUPS

    engine = make_engine()
    doc = seq(*(group(f"g{i}", **{"in": {"host": "string"}, "out": {"r": "string"},
                                "tools": tools({"tool": "echo", "args": {"value": "$args.host"}, "as": "r"})})
                for i in range(MAX_GROUPS)))
    await engine.create(doc)
    async with LoopWatch() as watch:
        run = await engine.start("s", {"host": "h"})
        record = await engine.runner.wait(run.run_id, 60)
    assert record.status == "succeeded" and len(record.groups) == MAX_GROUPS
    assert watch.longest < 0.030, f"the loop worked {watch.longest * 1000:.0f} ms without a turn for anything else"
