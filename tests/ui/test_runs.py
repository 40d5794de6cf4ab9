"""Run history (`/runs`) and a run's record (`/runs/{id}`), seen through NiceGUI's simulated user."""

from __future__ import annotations

import json

from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx
from support.waiting import wait_until

from gui.core.asks.interactions import ApprovalResponse


def tools(*objs: dict) -> str:
    return " ".join(json.dumps(o) + " ;" for o in objs)


GREET = {"name": "greet", "groups": [{
    "name": "hello", "in": {"who": "string"}, "out": {"greeting": "string"},
    "tools": tools({"tool": "echo", "args": {"value": "hi $args.who"}, "as": "greeting"})}]}


async def test_empty_history_points_to_the_run_page(user: User):
    await user.open("/runs")
    await user.should_see("No runs yet.")


async def test_history_lists_each_run_with_status_sequence_and_duration(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    done = await engine.run("greet", {"who": "Ada"})
    await user.open("/runs")
    table = next(iter(user.find(kind=ui.table).elements))
    (row,) = table.rows
    assert row["run_id"] == done.run_id
    assert row["word"] == "Succeeded" and row["sequence"] == "greet"
    assert row["duration"].endswith(" s")
    await user.should_not_see("No runs yet.")


async def test_history_updates_when_a_run_starts(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await user.open("/runs")
    await user.should_see("No runs yet.")
    await engine.run("greet", {"who": "Bo"})
    await user.should_not_see("No runs yet.", retries=50)


async def test_a_run_record_shows_args_results_tools_and_its_requests(user: User):
    engine = app_ctx().engine
    await engine.create({"name": "shell", "groups": [
        {"name": "shell-g", "in": {"word": "string"}, "out": {"said": "string"},
         "tools": tools({"tool": "cmd_run", "args": {"command": "echo $args.word"}, "as": "said"})}]})
    started = await engine.start("shell", {"word": "bonjour"})
    (pending,) = await wait_until(lambda: engine.interactions.pending(started.run_id), "the run's request")
    await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
    record = await engine.runner.wait(started.run_id, timeout=10)
    assert record.status == "succeeded"
    await user.open(f"/runs/{record.run_id}")
    await user.should_see("Succeeded")
    await user.should_see("Inputs it was run with")
    await user.should_see('"word": "bonjour"')
    await user.should_see("Arguments as sent")
    await user.should_see(marker="output-said")
    await user.should_see("Run a command")
    await user.should_see("Approved")
    await user.should_see(marker=f"request-{pending.interaction_id}")


async def test_a_failed_run_record_shows_the_error(user: User):
    engine = app_ctx().engine
    await engine.create({"name": "broken", "groups": [  # a tool that is not there fails without asking anyone
        {"name": "broken-g", "in": {}, "out": {}, "tools": tools({"tool": "no_such_tool"})}]})
    record = await engine.run("broken", {})
    await user.open(f"/runs/{record.run_id}")
    await user.should_see(marker="run-error")
    await user.should_see(record.groups[0].tools[0].error or "")
    await user.should_see("This run asked nobody anything.")


async def test_run_again_starts_a_new_run_with_the_same_args(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    first = await engine.run("greet", {"who": "Cy"})
    await user.open(f"/runs/{first.run_id}")
    user.find(marker="run-again").click()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    runs = await engine.list_runs()
    assert len(runs) == 2
    assert runs[0].run_id != first.run_id and runs[0].args == {"who": "Cy"}


async def test_an_unknown_run_record_says_so(user: User):
    await user.open("/runs/nope")
    await user.should_see("There is no run nope.")


async def test_a_run_of_many_groups_opens_a_batch_at_a_time_without_holding_up_the_app(user: User):
    from support.loop_watch import LoopWatch

    from gui.ui.components.run.group_list import FIRST_GROUPS, GroupList

    engine = app_ctx().engine
    count = 200
    await engine.create({"name": "long", "groups": [
        {"name": f"long-{g}", "tools": tools({"tool": "echo", "args": {"value": g}})} for g in range(count)]})
    done = await engine.run("long")
    assert done.status == "succeeded" and count > FIRST_GROUPS
    await user.open(f"/runs/{done.run_id}")
    (groups,) = user.find(kind=GroupList).elements
    assert len(groups.sections) < count  # the first rows are there at once, the rest come in batches
    await user.should_see(f"Group {FIRST_GROUPS} · long-{FIRST_GROUPS - 1}")
    async with LoopWatch() as watch:  # the batches come while the app goes on
        await wait_until(lambda: groups.built, "every group's row", timeout=60, every=0.01)
    assert len(groups.sections) == count
    await user.should_see(f"Group {count} · long-{count - 1}")
    assert watch.longest < 0.100, f"a batch held the loop for {watch.longest * 1000:.0f} ms"
