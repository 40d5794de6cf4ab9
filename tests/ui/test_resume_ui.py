"""The Resume button on a run's pages and in the runs list, seen through NiceGUI's simulated user."""

from __future__ import annotations

import json

from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx

from gui.tools.echo import Echo
from gui.wording.requests import clock


class LateEcho(Echo):
    name = "late.echo"  # not there for the first attempt: that one fails without asking anyone


TWO = {"name": "two-step", "groups": [
    {"name": "first", "out": {"a": "number"},
     "tools": json.dumps({"tool": "echo", "args": {"value": 1}, "as": "a"}) + " ;"},
    {"name": "second", "in": {"a": "number"}, "out": {"b": "number"},
     "tools": json.dumps({"tool": "late.echo", "args": {"value": "$args.a"}, "as": "b"}) + " ;"}]}


async def failed_run() -> str:
    engine = app_ctx().engine
    engine.registry.remove("late.echo")
    await engine.create(TWO)
    record = await engine.run("two-step", {})
    assert record.status == "failed"
    engine.registry.add(LateEcho())
    return record.run_id


async def test_a_failed_runs_record_offers_resume_and_the_new_attempt_says_what_it_kept(user: User):
    run_id = await failed_run()
    await user.open(f"/runs/{run_id}")
    user.find(marker="resume").click()
    await user.should_see(marker="attempt", retries=100)
    await user.should_see("Attempt 2: resumes")
    await user.should_see("· kept what had succeeded: the group first")
    engine = app_ctx().engine
    old = await engine.get_run(run_id)
    assert old.resumed_by is not None
    new = await engine.runner.wait(old.resumed_by, timeout=5)
    assert new.status == "succeeded" and new.outputs == {"a": 1, "b": 1}
    for page in (f"/runs/{new.run_id}", f"/run/{new.run_id}"):  # the kept group says so, not only "Succeeded"
        await user.open(page)
        await user.should_see("Kept from")
        await user.should_see(": it had succeeded there, so it was not run again")
        # the run it was kept from: a link worded by when that run started, its id in the tooltip only
        await user.should_see(f"run started {clock(int(old.created_at * 1000))}", marker="kept-link", retries=100)
        [link] = user.find(marker="kept-link").elements
        assert link.props["href"] == f"/runs/{run_id}" and run_id not in link.text
        [kept] = user.find(marker="group-kept").elements
        assert [t.text for t in kept.descendants() if isinstance(t, ui.tooltip)
                and t.props.get("target") == f"#{link.html_id}"] == [f"Run {run_id}"]
        assert [e.text for e in kept.default_slot.children if isinstance(e, ui.label)] == [
            "Kept from ", ": it had succeeded there, so it was not run again"]
    await user.open(f"/runs/{run_id}")
    await user.should_see(marker="resumed-by")
    # each attempt names the other by when it started, not by its id (kept in the link's tooltip)
    await user.should_see(f"run started {clock(int(new.created_at * 1000))}", retries=100)
    await user.open(f"/runs/{new.run_id}")
    await user.should_see(f"run started {clock(int(old.created_at * 1000))}", retries=100)
    assert run_id not in next(iter(user.find(marker="resumes-link").elements)).text
    await user.should_not_see(marker="resume")


ONE = {"name": "one-group", "groups": [
    {"name": "both", "parallel": False, "out": {"a": "number", "b": "number"},
     "tools": json.dumps({"tool": "echo", "args": {"value": 1}, "as": "a"}) + " ; "
              + json.dumps({"tool": "late.echo", "args": {"value": 2}, "as": "b"}) + " ;"}]}


async def test_a_resumed_run_that_kept_a_tool_says_which_never_that_nothing_was_kept(user: User):
    engine = app_ctx().engine
    engine.registry.remove("late.echo")
    await engine.create(ONE)
    first = await engine.run("one-group", {})
    assert first.status == "failed" and first.groups[0].tools[0].status == "succeeded"
    engine.registry.add(LateEcho())
    new = await engine.resume(first.run_id)
    await engine.runner.wait(new.run_id, timeout=5)
    await user.open(f"/runs/{new.run_id}")
    await user.should_see(marker="kept-steps", retries=100)
    await user.should_see("· kept what had succeeded: in both, the tool echo (tool 1)")
    await user.should_not_see("nothing was kept")


async def test_a_succeeded_run_has_no_resume_button(user: User):
    engine = app_ctx().engine
    await engine.create(TWO)
    engine.registry.add(LateEcho())
    record = await engine.run("two-step", {})
    await user.open(f"/runs/{record.run_id}")
    await user.should_see("Succeeded")
    await user.should_not_see(marker="resume")


async def test_the_runs_list_resumes_a_failed_run_from_its_row(user: User):
    run_id = await failed_run()
    await user.open("/runs")
    table = next(iter(user.find(kind=ui.table).elements))
    (row,) = table.rows
    assert row["run_id"] == run_id and row["resumable"] is True
    assert any(c["name"] == "resume" for c in table.columns)
    user.find(kind=ui.table).trigger("resume", run_id)
    await user.should_see(marker="attempt", retries=100)
    assert (await app_ctx().engine.get_run(run_id)).resumed_by is not None


async def test_a_refused_resume_from_a_stale_list_says_why(user: User):
    run_id = await failed_run()
    await user.open("/runs")
    await app_ctx().engine.resume(run_id)  # resumed elsewhere (the CLI) while the list was open
    user.find(kind=ui.table).trigger("resume", run_id)
    await user.should_see(f"Could not resume: run {run_id} was resumed already")


async def test_the_live_run_page_shows_resume_once_the_watched_run_fails(user: User):
    engine = app_ctx().engine
    await engine.create({"name": "nap", "groups": [
        {"name": "nap-g", "tools": json.dumps({"tool": "sleep", "args": {"seconds": 30}}) + " ;"}]})
    record = await engine.start("nap")
    await user.open(f"/run/{record.run_id}")
    await user.should_not_see(marker="resume")
    await engine.stop(record.run_id)
    await user.should_see(marker="resume", retries=100)
