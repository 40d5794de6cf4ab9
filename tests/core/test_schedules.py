"""Schedules with an injected clock: due turns start runs, missed ones run once, busy ones skip."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest
from support.builders import group, seq, tools
from support.waiting import wait_until, within

from gui.core.door.engine import Engine
from gui.core.runs.schedules import KEPT_TURNS, ScheduleInvalid, next_time
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T0 = datetime(2026, 3, 2, 9, 0, 0).timestamp()  # local time, as cron reads it


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def engine_at(clock: Clock) -> Engine:
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    engine.schedule_book.scheduler.clock = clock
    return engine


GREET = seq(group("hello", **{"in": {"who": "string"}}, out={"said": "string"},
                  tools=tools({"tool": "echo", "args": {"value": "hi $args.who"}, "as": "said"})), name="greet")
NAP = seq(group("nap-g", tools=tools({"tool": "sleep", "args": {"seconds": 30}})), name="nap")


async def test_an_interval_schedule_runs_its_sequence_with_its_args_each_time_it_comes_due():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    made = await engine.create_schedule("greet", {"who": "Ada"}, every="15m")
    assert made.next_at == T0 + 900
    assert await engine.schedule_book.scheduler.tick() == []  # not due yet
    clock.now = T0 + 900
    [(schedule, turn)] = await engine.schedule_book.scheduler.tick()
    assert turn.outcome == "started" and schedule.next_at == T0 + 1800
    record = await engine.runner.wait(turn.run_id, timeout=5)
    assert record.status == "succeeded" and record.outputs == {"said": "hi Ada"}
    assert record.schedule_id == made.schedule_id and record.note == "started by a schedule (every 15m)"


async def test_a_cron_schedule_comes_due_on_its_times_in_local_time():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    made = await engine.create_schedule("greet", {"who": "Ada"}, cron="*/15 * * * *")
    assert made.next_at == T0 + 900
    assert next_time(made, T0 + 901) == T0 + 1800
    weekday = await engine.create_schedule("greet", {"who": "Bo"}, cron="30 8 * * 1-5")
    assert datetime.fromtimestamp(weekday.next_at) == datetime(2026, 3, 3, 8, 30)


async def test_turns_missed_while_the_app_was_closed_run_once_at_start_up_and_say_so():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    made = await engine.create_schedule("greet", {"who": "Ada"}, every="10m")
    clock.now = T0 + 10 * 3600 + 5  # the app was closed for ten hours: sixty turns went by
    taken = await engine.schedule_book.scheduler.tick(at_start_up=True)
    assert len(taken) == 1
    schedule, turn = taken[0]
    assert schedule.next_at == T0 + 10 * 3600 + 600  # the next turn from now, no catching up
    record = await engine.runner.wait(turn.run_id, timeout=5)
    assert record.note.startswith("started by a schedule (every 10m) at start-up: its turn at 2026-03-02 09:10 "
                                  "was missed while the app was closed, so it runs once now")
    assert await engine.schedule_book.scheduler.tick() == []
    assert [t.outcome for t in (await engine.list_schedules())[0].turns] == ["started"]
    assert made.schedule_id == schedule.schedule_id


async def test_a_turn_whose_previous_run_still_runs_is_skipped_and_the_skip_recorded():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(NAP)
    await engine.create_schedule("nap", {}, every="1m")
    clock.now += 60
    [(_, first)] = await engine.schedule_book.scheduler.tick()
    clock.now += 60
    [(schedule, second)] = await engine.schedule_book.scheduler.tick()
    assert second.outcome == "skipped"
    assert second.detail == f"skipped: the previous run ({first.run_id}) is still running"
    assert second.cause == "schedule_busy"  # its words come from the one table (`gui.core.causes`)
    assert len(engine.runner.active()) == 1
    await engine.stop(first.run_id)
    clock.now += 60
    [(_, third)] = await engine.schedule_book.scheduler.tick()
    assert third.outcome == "started"
    await engine.stop(third.run_id)
    assert [t.outcome for t in (await engine.schedules.get(schedule.schedule_id)).turns] == [
        "started", "skipped", "started"]


async def test_a_paused_schedule_does_not_run_and_going_on_does_not_make_up_the_turns():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    made = await engine.create_schedule("greet", {"who": "Ada"}, every="1m")
    await engine.pause_schedule(made.schedule_id)
    clock.now += 3600
    assert await engine.schedule_book.scheduler.tick() == []
    again = await engine.pause_schedule(made.schedule_id, paused=False)
    assert again.next_at == clock.now + 60
    assert await engine.delete_schedule(made.schedule_id) and not await engine.delete_schedule(made.schedule_id)
    with pytest.raises(LookupError, match="there is no schedule"):
        await engine.pause_schedule(made.schedule_id)


async def test_a_sequence_deleted_since_is_a_failed_turn_with_the_reason():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    await engine.create_schedule("greet", {"who": "Ada"}, every="1m")
    await engine.delete("greet")
    clock.now += 60
    [(schedule, turn)] = await engine.schedule_book.scheduler.tick()
    assert turn.outcome == "failed" and "no saved sequence named 'greet'" in turn.detail
    for _ in range(KEPT_TURNS + 5):
        clock.now += 60
        await engine.schedule_book.scheduler.tick()
    assert len((await engine.schedules.get(schedule.schedule_id)).turns) == KEPT_TURNS


@pytest.mark.parametrize(("fields", "where", "words"), [
    ({"sequence": "nope", "every": "15m"}, "sequence", "there is no saved sequence named 'nope'"),
    ({"sequence": "greet", "args": {"who": 3}, "every": "15m"}, "args", "'who' must be a string"),
    ({"sequence": "greet", "args": {}, "every": "15m"}, "args", "'who' is missing"),
    ({"sequence": "greet", "args": {"who": "a"}, "every": "5s"}, "every", "at most every 10s"),
    ({"sequence": "greet", "args": {"who": "a"}, "every": "soon"}, "every", "is not a duration"),
    ({"sequence": "greet", "args": {"who": "a"}, "cron": "*/15 * *"}, "cron", "is not a cron expression"),
    ({"sequence": "greet", "args": {"who": "a"}, "cron": "61 * * * *"}, "cron", "is not a cron expression"),
    ({"sequence": "greet", "args": {"who": "a"}}, "every", 'give either "every"'),
    ({"sequence": "greet", "args": {"who": "a"}, "every": "1m", "cron": "* * * * *"}, "every", "not both"),
])
async def test_a_bad_schedule_is_refused_at_its_field_and_nothing_is_stored(fields, where, words):
    engine = engine_at(Clock())
    await engine.create(GREET)
    with pytest.raises(ScheduleInvalid) as refused:
        await engine.create_schedule(**fields)
    assert where in refused.value.fields and words in refused.value.fields[where]
    assert await engine.list_schedules() == []


async def test_the_scheduler_loop_wakes_for_a_new_schedule_and_runs_it_when_due():
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    await engine.create(GREET)
    started = asyncio.Event()
    engine.subscribe(lambda e: e.type == "run.finished" and started.set())
    engine.start_schedules()
    try:
        made = await engine.create_schedule("greet", {"who": "Ada"}, every="10s")
        made.next_at = engine.schedule_book.scheduler.clock()  # due now: the loop must wake up for the change
        await engine.schedules.save(made)
        engine.schedule_book.scheduler.changed.set()
        await within(started.wait(), "the due schedule's run to end", timeout=5)
    finally:
        await engine.close()


async def test_a_scheduled_runs_risky_step_waits_in_the_inbox_like_any_other():
    clock = Clock()
    engine = engine_at(clock)
    await engine.create(seq(group("shell-g", tools=tools({"tool": "cmd_run", "args": {"command": "echo hi"}})),
                            name="shell"))
    await engine.create_schedule("shell", {}, every="1m")
    clock.now += 60
    [(_, turn)] = await engine.schedule_book.scheduler.tick()
    pending = await wait_until(lambda: engine.pending(turn.run_id), "the turn's request in the inbox")
    assert pending[0].request.kind == "approval" and pending[0].request.turn_id == turn.run_id
    await engine.stop(turn.run_id)


async def test_schedules_are_bounded_in_number(monkeypatch):
    from gui.core.door import schedule_book
    monkeypatch.setattr(schedule_book, "MAX_SCHEDULES", 2)
    engine = engine_at(Clock())
    await engine.create(GREET)
    for _ in range(2):
        await engine.create_schedule("greet", {"who": "a"}, every="1h")
    with pytest.raises(ScheduleInvalid, match="there are 2 schedules already"):
        await engine.create_schedule("greet", {"who": "a"}, every="1h")
    assert len(await engine.list_schedules()) == 2


async def test_a_turn_of_a_sequence_over_the_size_limits_fails_saying_why_and_the_others_go_on():
    from gui.core.sequences.limits import MAX_GROUPS
    from gui.core.sequences.model import Group, Sequence, ToolCall

    clock = Clock()
    engine = engine_at(clock)
    await engine.create(GREET)
    older = Sequence(name="older", groups=tuple(Group(name=f"older-{g}", tools=(ToolCall(tool="echo"),))
                                                for g in range(MAX_GROUPS + 1)))
    await engine.sequences.save(older)  # as a SeqDesk without size limits could have saved it
    await engine.create_schedule("older", {}, every="15m")
    await engine.create_schedule("greet", {"who": "Ada"}, every="15m")
    clock.now = T0 + 900
    turns = {schedule.sequence: turn for schedule, turn in await engine.schedule_book.scheduler.tick()}
    assert turns["older"].outcome == "failed"
    assert turns["older"].detail.startswith(f"could not start: the sequence has {MAX_GROUPS + 1} groups")
    assert turns["greet"].outcome == "started"
