"""The run panel says what each tool does and how it ended in words, and lets a person answer a
waiting request in place; short run ids work in the address; the timeline selects and collapses."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx, engine_open  # noqa: F401  (autouse: wait for the engine)

from gui.core.runs.records import RunRecord
from gui.ui.components.run.panel import RunPanel
from gui.ui.components.run.status import AMBER, ORANGE
from gui.ui.components.run.timeline import RunTimeline

R = 100


def tools(*objs: dict) -> str:
    return " ".join(json.dumps(o) + " ;" for o in objs)


def shell_doc(name: str, command: str = "true") -> dict:
    return {"name": name, "groups": [group(f"{name}-g", {"tool": "cmd_run", "args": {"command": command}})]}


def group(name: str, *calls: dict, **fields) -> dict:
    return {"name": name, "in": {}, "out": {}, "tools": tools(*calls), **fields}


async def start(doc: dict, args: dict | None = None) -> str:
    engine = app_ctx().engine
    await engine.create(doc)
    waiting = asyncio.Event()
    unsubscribe = engine.subscribe(lambda e: waiting.set() if e.type == "tool.waiting" else None)
    record = await engine.start(doc["name"], args or {})
    await asyncio.wait_for(waiting.wait(), 5)
    unsubscribe()
    return record.run_id


def the_panel(user: User) -> RunPanel:
    (panel,) = user.find(marker="run-panel").elements
    assert isinstance(panel, RunPanel)
    return panel


async def test_a_card_says_which_command_and_a_denial_reads_denied_by_you_with_the_note(user: User):
    run_id = await start({"name": "freeze", "groups": [
        group("freeze-g", {"tool": "cmd_run", "args": {"command": "deploy --now"}}),
        group("after-g", {"tool": "echo", "args": {"value": "to $args.who"}}, **{"in": {"who": "string"}})]},
        {"who": "Ada"})
    await user.open(f"/run/{run_id}")
    await user.should_see("Run: deploy --now", retries=R)
    await user.should_see("Not started yet")  # the queued second group: not "Waiting" beside "Waiting for you"
    await user.should_see("Give back: to ⤷ who")  # what a queued tool will do, its input named, never $args
    user.find(marker="answer-here").click()
    await user.should_see(marker="deny-reason", retries=R)
    user.find(marker="deny-reason").type("Not during the freeze")
    user.find(marker="deny").click()
    await user.should_see("Denied by you: Not during the freeze", retries=R)
    await user.should_see("Not run: an earlier group failed", retries=R)
    await user.should_not_see("not run: not run")
    await user.should_not_see("Not run: not run")
    chips = [e.text for e in user.find(kind=ui.label).elements]
    assert "Failed" not in chips and "Denied by you" in chips
    record = await app_ctx().engine.get_run(run_id)
    assert record.groups[0].tools[0].denied


def legend_of(user: User) -> dict[str, str]:
    """The timeline's legend (colour → words), after checking that every colour a bar is drawn in is in it."""
    (timeline,) = user.find(kind=RunTimeline).elements
    shown = dict(timeline._legend)
    drawn = {item["itemStyle"]["color"] for item in timeline.chart.options["series"][0]["data"]}
    assert drawn <= set(shown), f"drawn without a word in the legend: {drawn - set(shown)}"
    with user.scope(marker="timeline-legend"):
        for words in shown.values():
            assert any(e.text == words for e in user.find(kind=ui.label).elements), words
    return shown


async def test_the_timeline_legend_names_every_colour_it_draws_denied_and_timed_out_too(user: User):
    run_id = await start(shell_doc("refused", "deploy --now"))
    await user.open(f"/run/{run_id}")
    user.find(marker="answer-here").click()
    await user.should_see(marker="deny", retries=R)
    user.find(marker="deny").click()
    await user.should_see("Denied by you", retries=R)
    await user.should_see("denied by you", retries=R)  # the amber bar's word in the legend
    assert legend_of(user)[AMBER] == "denied by you"

    engine = app_ctx().engine
    await engine.create({"name": "too-slow", "groups": [group("too-slow-g", {"tool": "sleep", "args": {"seconds": 30}},
                                                              timeout="200ms")]})
    ended = asyncio.Event()
    unsubscribe = engine.subscribe(lambda e: ended.set() if e.type == "run.finished" else None)
    record = await engine.start("too-slow", {})
    await asyncio.wait_for(ended.wait(), 10)
    unsubscribe()
    await user.open(f"/run/{record.run_id}")
    await user.should_see(marker="timeline-legend", retries=R)
    await user.should_see("timed out", retries=R)
    assert legend_of(user)[ORANGE] == "timed out"


async def test_answering_in_place_approves_and_the_run_goes_on(user: User):
    run_id = await start({"name": "inplace", "groups": [group("inplace-g", {"tool": "cmd_run",
                                                                          "args": {"command": "echo placed"}})]})
    await user.open(f"/run/{run_id}")
    await user.should_see("1 request needs you", retries=R)
    user.find(marker="banner-answer").click()
    await user.should_see(marker="answer-panel", retries=R)
    await user.should_see(marker="approve", retries=R)
    user.find(marker="approve").click()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=R)
    assert (await app_ctx().engine.get_run(run_id)).status == "succeeded"


async def test_closing_the_answer_panel_leaves_the_request_waiting(user: User):
    run_id = await start(shell_doc("close"))
    await user.open(f"/run/{run_id}")
    user.find(marker="answer-here").click()
    await user.should_see(marker="answer-panel-close", retries=R)
    user.find(marker="answer-panel-close").click()
    pending = await app_ctx().engine.pending(run_id)
    assert len(pending) == 1 and pending[0].status == "pending"
    await app_ctx().engine.stop(run_id)


async def test_a_stopped_run_reads_stopped_by_you(user: User):
    run_id = await start(shell_doc("halt"))
    await user.open(f"/run/{run_id}")
    await user.should_see("Waiting for you", retries=R)
    user.find(marker="stop-run").click()
    user.find(marker="confirm-stop").click()
    await user.should_see("Stopped by you", retries=R)


async def test_a_short_run_id_opens_the_run_and_an_ambiguous_one_says_which(user: User):
    engine = app_ctx().engine
    for run_id in ("0911dd99aaaa", "0911dd99bbbb", "5a5a5a5a1234"):
        await engine.runs.save(RunRecord(run_id=run_id, sequence="nightly", status="succeeded", created_at=1.0,
                                         finished_at=2.0))
    await user.open("/run/5a5a5a5a")
    await user.should_see(marker="run-panel", retries=R)
    await user.should_see("nightly")
    await user.open("/run/0911dd99")
    await user.should_see("More than one run starts with “0911dd99”", retries=R)
    await user.should_see("run 0911dd99aaaa")
    await user.should_see("run 0911dd99bbbb")


async def test_a_short_run_id_opens_the_run_record_too(user: User):
    engine = app_ctx().engine
    for run_id in ("0911dd99aaaa", "0911dd99bbbb", "5a5a5a5a1234"):
        await engine.runs.save(RunRecord(run_id=run_id, sequence="nightly", status="succeeded", created_at=1.0,
                                         finished_at=2.0))
    await user.open("/runs/5a5a5a5a")
    await user.should_see("nightly", retries=R)
    await user.should_not_see("There is no run")
    await user.open("/runs/0911dd99")
    await user.should_see("More than one run starts with “0911dd99”", retries=R)
    link = next(iter(user.find("run 0911dd99aaaa").elements))
    assert link.props["href"] == "/runs/0911dd99aaaa"  # the record page links records


async def test_the_inbox_run_link_opens_the_live_run_panel(user: User):
    run_id = await start(shell_doc("linked"))
    await user.open("/inbox")
    await user.should_see(marker="run-link", retries=R)
    (link,) = user.find(marker="run-link").elements
    assert link.props["href"] == f"/run/{run_id}"
    await user.should_see("run started ", retries=R)  # named by when it started: the id is in its tooltip
    await app_ctx().engine.stop(run_id)


async def test_a_timeline_bar_selects_its_tool(user: User):
    await app_ctx().engine.create({"name": "bars", "groups": [group(
        "bars-g", *({"tool": "echo", "args": {"value": i}} for i in range(3)))]})
    record = await app_ctx().engine.run("bars", {})
    await user.open(f"/run/{record.run_id}")
    await user.should_see(marker="timeline", retries=R)
    (timeline,) = user.find(kind=RunTimeline).elements
    bar = next(d for d in timeline.chart.options["series"][0]["data"] if d.get("tool") == [0, 2])
    with timeline:
        timeline._clicked(SimpleNamespace(data=bar))  # what ECharts' point click hands the page
    await user.should_see(marker="detail-args")
    assert the_panel(user).selected == (0, 2) and the_panel(user).tabs.value == "details"


async def test_a_big_group_is_one_bar_with_counts_until_every_tool_is_asked_for(user: User):
    await app_ctx().engine.create({"name": "big", "groups": [group(
        "big-g", *({"tool": "echo", "args": {"value": i}} for i in range(20)))]})
    record = await app_ctx().engine.run("big", {})
    await user.open(f"/run/{record.run_id}")
    await user.should_see(marker="timeline-collapse", retries=R)
    (timeline,) = user.find(kind=RunTimeline).elements
    labels = timeline.chart.options["yAxis"]["data"]
    assert labels == ["{g|1. big-g} (20 tools)"]
    tips = {d["tip"] for d in timeline.chart.options["series"][0]["data"]}
    assert tips == {"Group 1 · big-g · 20 succeeded"}
    timeline.collapse_switch.set_value(False)
    assert len(timeline.chart.options["yAxis"]["data"]) == 21


async def test_arguments_as_sent_use_plain_words_never_null_or_cwd(user: User):
    engine = app_ctx().engine
    engine.modes.set("cmd_run", "always-allow")
    await engine.create({"name": "words", "groups": [group("words-g", {"tool": "cmd_run",
                                                                     "args": {"command": "echo w"}})]})
    record = await engine.run("words", {})
    await user.open(f"/run/{record.run_id}")
    await user.should_see(marker="tool-0-0", retries=R)
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-args")
    (detail,) = user.find(marker="tool-detail").elements
    texts = [e.text for e in detail.descendants() if isinstance(e, ui.label)]
    assert "Folder" in texts and "Time limit" in texts and "Command" in texts
    assert not {"cwd", "timeout", "null", "None", "string", "$args"} & set(texts)


async def test_the_run_record_shows_arguments_in_plain_words_too(user: User):
    engine = app_ctx().engine
    engine.modes.set("cmd_run", "always-allow")
    await engine.create(shell_doc("record-words", "echo r"))
    record = await engine.run("record-words", {})
    await user.open(f"/runs/{record.run_id}")
    await user.should_see(marker="card-args", retries=R)
    texts = {e.text for e in user.find(kind=ui.label).elements}
    assert {"Folder", "Time limit", "Command"} <= texts
    assert not {"cwd", "timeout", "null", "cwd: null", "timeout: null"} & texts
