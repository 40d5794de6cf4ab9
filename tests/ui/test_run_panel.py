"""The run panel (`/run`), driven as a person would with NiceGUI's simulated user."""

from __future__ import annotations

import asyncio
import json
import re
from typing import ClassVar

from nicegui import ui
from nicegui.testing import User
from pydantic import BaseModel
from support.ui import app_ctx
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse
from gui.core.errors import ToolError
from gui.core.events import ToolRetrying
from gui.core.runs.records import ToolRecord
from gui.core.tools.registry import ModelTool, ToolContext
from gui.ui.components.run.panel import RunPanel
from gui.ui.components.run.retry import RetryInfo, retry_words
from gui.ui.components.run.tool_card import ToolCard


def tools(*objs: dict) -> str:
    return " ".join(json.dumps(o) + " ;" for o in objs)


async def save(doc: dict) -> None:
    await app_ctx().engine.create(doc)


def group(name: str, *calls: dict, **fields) -> dict:
    return {"name": name, "in": {}, "out": {}, "tools": tools(*calls), **fields}


async def pending_ids(run_id: str | None = None) -> list[str]:
    records = await app_ctx().engine.interactions.pending(run_id)
    return [r.interaction_id for r in records]


async def test_empty_run_panel_says_nothing_has_run_yet(user: User):
    await save({"name": "waits", "groups": [group("waits-g", {"tool": "echo", "args": {"value": 1}})]})
    await user.open("/run")
    await user.should_see("Nothing has run yet. Pick a sequence and press Run.")


async def test_with_no_sequence_saved_the_run_panel_says_to_make_one_not_to_pick_one(user: User):
    await user.open("/run")
    await user.should_see("There are no saved sequences yet.")
    await user.should_see("Make one in Sequences")
    await user.should_not_see("Pick a sequence and press Run.")


async def test_args_form_is_generated_from_the_signature_and_checks_json(user: User):
    await save({"name": "typed", "groups": [group(
        "typed-g", {"tool": "echo", "args": {"value": "$args.items"}, "as": "out"},
        **{"in": {"host": "string", "count": "number", "loud": "boolean", "items": "array"},
           "out": {"out": "array"}})]})
    await user.open("/run?sequence=typed")
    for name in ("host", "count", "loud", "items"):
        await user.should_see(marker=f"arg-{name}")
    user.find(marker="arg-items").type("[1, 2")
    user.find(marker="run-button").click()
    await user.should_see("This is not valid JSON")
    await user.should_see("Enter a number")
    await user.should_see("Some inputs need fixing")
    assert await app_ctx().engine.list_runs() == []


async def test_a_text_input_left_empty_is_named_at_its_field_and_runs_empty_only_when_ticked(user: User):
    await save({"name": "greet", "groups": [group(
        "hello", {"tool": "echo", "args": {"value": "hi $args.who"}, "as": "greeting"},
        **{"in": {"who": "string"}, "out": {"greeting": "string"}})]})
    await user.open("/run?sequence=greet")
    await user.should_see(marker="arg-who")
    user.find(marker="run-button").click()
    await user.should_see("Enter the text for who, or tick “Run with who empty”")
    await user.should_see("Some inputs need fixing")
    assert await app_ctx().engine.list_runs() == []
    user.find(marker="arg-who-empty").click()
    user.find(marker="run-button").click()
    await user.should_see("Succeeded", retries=100)
    [run] = await app_ctx().engine.list_runs()
    assert run.args == {"who": ""}


async def test_running_a_sequence_shows_success_and_its_results(user: User):
    await save({"name": "greet", "groups": [group(
        "hello", {"tool": "echo", "args": {"value": "hi $args.who"}, "as": "greeting"},
        **{"in": {"who": "string"}, "out": {"greeting": "string"}})]})
    await user.open("/run?sequence=greet")
    user.find(marker="arg-who").type("Ada")
    user.find(marker="run-button").click()
    await user.should_see("Succeeded", retries=100)
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    await user.should_see(marker="output-greeting")
    await user.should_see("hi Ada")
    runs = await app_ctx().engine.list_runs()
    assert runs[0].args == {"who": "Ada"} and runs[0].status == "succeeded"


async def test_a_command_waiting_for_approval_shows_waiting_for_you_with_the_inbox_link(user: User):
    await save({"name": "shell", "groups": [group("shell-g", {"tool": "cmd_run", "args": {"command": "echo hi"}})]})
    await user.open("/run?sequence=shell")
    user.find(marker="run-button").click()
    await user.should_see("Waiting for you", retries=100)
    await user.should_see("1 request needs you", retries=100)
    (iid,) = await pending_ids()
    link = next(iter(user.find(marker="inbox-link").elements))
    assert link.props["href"] == f"/inbox/{iid}"
    await app_ctx().engine.interactions.respond(iid, ApprovalResponse(decision="approved"))
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    await user.should_not_see("1 request needs you")


async def test_stop_asks_first_then_cancels_the_run(user: User):
    await save({"name": "stoppable", "groups": [group("stop-g", {"tool": "cmd_run", "args": {"command": "true"}})]})
    await user.open("/run?sequence=stoppable")
    user.find(marker="run-button").click()
    await user.should_see("Waiting for you", retries=100)
    user.find(marker="stop-run").click()
    await user.should_see("Stop now? Running tools will be cancelled.")
    user.find(marker="confirm-stop").click()
    await user.should_see("Stopped", retries=100)
    (run,) = await app_ctx().engine.list_runs()
    assert run.status == "stopped"
    assert await pending_ids() == []


async def test_a_skipped_group_shows_its_reason(user: User):
    await save({"name": "maybe", "groups": [group(
        "maybe-g", {"tool": "echo", "args": {"value": 1}}, when="$args.go == true", **{"in": {"go": "boolean"}})]})
    await user.open("/run?sequence=maybe")
    user.find(marker="run-button").click()
    await user.should_see("Skipped: it runs only if go is yes, and that was not so", retries=100)
    await user.should_not_see("$args")
    await user.should_see("Finished · 0 of 1 tools succeeded · 1 skipped")


async def test_a_failed_tool_shows_its_error_in_plain_words(user: User):
    call = {"tool": "file_read", "args": {"path": "/nope/x.txt"}}
    app_ctx().engine.modes.set("file_read", "always-allow")  # it asks first: allowed, it fails
    await save({"name": "broken", "groups": [group("broken-g", call)]})
    await user.open("/run?sequence=broken")
    user.find(marker="run-button").click()
    await user.should_see("Failed", retries=100)
    (run,) = await app_ctx().engine.list_runs()
    error = run.groups[0].tools[0].error
    assert error
    await user.should_see(error)
    await user.should_see(marker="run-error")


def saves_to(user: User) -> list[str]:
    return [label.text for label in user.find(marker="tool-saves-to").elements]


async def test_a_tool_card_says_its_result_was_saved_only_once_it_was(user: User):
    await save({"name": "said", "groups": [group("said-g", {"tool": "cmd_run", "args": {"command": "echo hi"},
                                                            "as": "said"}, out={"said": "string"})]})
    await user.open("/run?sequence=said")
    user.find(marker="run-button").click()
    await user.should_see("Waiting for you", retries=100)
    assert saves_to(user) == ["its result goes to “said”"]  # not run yet: nothing is saved so far
    (iid,) = await pending_ids()
    await app_ctx().engine.interactions.respond(iid, ApprovalResponse(decision="approved"))
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    assert saves_to(user) == ["saved to “said”"]


async def test_a_failed_tool_card_says_nothing_was_saved(user: User):
    app_ctx().engine.modes.set("file_read", "always-allow")  # it asks first: allowed, it fails
    await save({"name": "unread", "groups": [group("unread-g", {"tool": "file_read", "args": {"path": "/nope/x.txt"},
                                                                "as": "text"}, out={"text": "string"})]})
    await user.open("/run?sequence=unread")
    user.find(marker="run-button").click()
    await user.should_see("Finished · 0 of 1 tools succeeded", retries=100)
    assert saves_to(user) == ["nothing saved to “text”"]


async def test_tools_that_ran_one_by_one_say_why(user: User):
    await save({"name": "serial", "groups": [group(
        "serial-g", {"tool": "echo", "args": {"value": 1}}, {"tool": "echo", "args": {"value": 2}}, parallel=False)]})
    await user.open("/run?sequence=serial")
    user.find(marker="run-button").click()
    await user.should_see("Ran one by one: parallel is off for this group", retries=100)


async def test_an_unknown_run_id_says_so(user: User):
    await user.open("/run/doesnotexist")
    await user.should_see("There is no run doesnotexist.")


async def test_timeline_has_a_row_per_tool_under_its_group(user: User):
    await save({"name": "wide", "groups": [group(
        "wide-g", *({"tool": "echo", "args": {"value": i}} for i in range(3)))]})
    await user.open("/run?sequence=wide")
    user.find(marker="run-button").click()
    await user.should_see("Finished · 3 of 3 tools succeeded", retries=100)
    chart = next(iter(user.find(kind=ui.echart).elements))
    labels = chart.options["yAxis"]["data"]
    assert labels[0].endswith("wide-g}") and len(labels) == 4
    rows = {item["value"][0] for item in chart.options["series"][0]["data"]}
    assert rows == {0, 1, 2, 3}


class FlakyArgs(BaseModel):
    pass


class FailsOnceThenWaits(ModelTool):
    """Fails its first attempt, then waits for the test: the card must say it is retrying."""

    name = "fails_once"
    description = "fails once, then waits"
    Args: ClassVar = FlakyArgs

    def __init__(self) -> None:
        self.attempts = 0
        self.release = asyncio.Event()

    async def call(self, args: dict, ctx: ToolContext) -> str:
        self.attempts += 1
        if self.attempts == 1:
            raise ToolError("the server said 503")
        await self.release.wait()
        return "ok"


async def test_a_retrying_tool_says_which_attempt_and_the_last_error(user: User):
    engine = app_ctx().engine
    tool = FailsOnceThenWaits()
    engine.registry.add(tool)
    await save({"name": "flaky", "groups": [group("flaky-g", {"tool": "fails_once"}, on_error="retry")]})
    await user.open("/run?sequence=flaky")
    user.find(marker="run-button").click()
    await user.should_see("Retrying", retries=100)
    await user.should_see("attempt 2 of 3 · last error: the server said 503", retries=100)
    tool.release.set()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)


# --- The selected tool's details ---------------------------------------------------------------

def detail_texts(user: User) -> list[str]:
    """The texts in the Details panel, in page order."""
    (detail,) = user.find(marker="tool-detail").elements
    return [e.text for e in detail.descendants() if isinstance(e, ui.label)]


def the_panel(user: User) -> RunPanel:
    (panel,) = user.find(marker="run-panel").elements
    assert isinstance(panel, RunPanel)
    return panel


async def test_the_timeline_tab_is_the_one_shown_first(user: User):
    await save({"name": "tabs", "groups": [group("tabs-g", {"tool": "echo", "args": {"value": "x"}})]})
    await user.open("/run?sequence=tabs")
    user.find(marker="run-button").click()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    panel = the_panel(user)
    (panels,) = [e for e in panel.descendants() if isinstance(e, ui.tab_panels)]
    assert panel.tabs.value == panels.value == "timeline"
    assert panel.tabs.props["model-value"] == panels.props["model-value"] == "timeline"


async def test_selecting_a_tool_shows_its_description_args_as_sent_and_result(user: User):
    await save({"name": "greet2", "groups": [group(
        "hello", {"tool": "echo", "args": {"value": "hi $args.who"}, "as": "greeting"},
        **{"in": {"who": "string"}, "out": {"greeting": "string"}})]})
    await user.open("/run?sequence=greet2")
    user.find(marker="arg-who").type("Ada")
    user.find(marker="run-button").click()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    await user.should_see(marker="detail-empty")
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-args")
    await user.should_see(marker="detail-result")
    texts = detail_texts(user)
    assert "1. echo" in texts
    assert app_ctx().engine.registry.get("echo").description in texts
    assert texts.index("Arguments as sent") < texts.index("Value") < texts.index("hi Ada")  # the resolved value
    assert texts.index("Result") < len(texts) - 1 and texts[texts.index("Result") + 1:].count("hi Ada") == 1
    assert the_panel(user).tabs.value == "details"
    (card,) = user.find(marker="tool-0-0").elements
    assert card.selected and card.props["aria-pressed"] == "true"


async def test_nested_args_are_shown_as_a_collapsible_tree(user: User):
    nested = {"who": {"name": "Ada", "tags": ["a", "b"]}, "n": 2}
    await save({"name": "nested", "groups": [group("nested-g", {"tool": "echo", "args": {"value": nested}})]})
    await user.open("/run?sequence=nested")
    user.find(marker="run-button").click()
    await user.should_see("Finished · 1 of 1 tools succeeded", retries=100)
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-result")
    trees = list(user.find(kind=ui.json_editor).elements)
    assert {"name": "Ada", "tags": ["a", "b"]} in [t.properties["content"]["json"] for t in trees]
    assert all(t.properties["readOnly"] for t in trees)


async def test_a_failed_tool_shows_the_plain_error_first_and_the_rest_under_details(user: User):
    engine = app_ctx().engine
    engine.registry.add(FailsWithDetails())
    await save({"name": "loud", "groups": [group("loud-g", {"tool": "fails_loudly", "args": {}})]})
    await user.open("/run?sequence=loud")
    user.find(marker="run-button").click()
    await user.should_see("Failed", retries=100)
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-error")
    (summary,) = user.find(marker="detail-error").elements
    assert summary.text == "The server refused the login."
    texts = detail_texts(user)
    assert texts.index("The server refused the login.") < texts.index("Arguments as sent")
    (more,) = user.find(marker="detail-error-more").elements
    assert more.value is False  # the technical rest starts collapsed
    assert "HTTP 401 Unauthorized\nat auth.py line 3" in [e.text for e in more.descendants() if isinstance(e, ui.label)]


async def test_the_selection_survives_live_refreshes_and_the_details_follow_the_tool(user: User):
    engine = app_ctx().engine
    tool = WaitsForTheTest()
    engine.registry.add(tool)
    await save({"name": "slow", "groups": [group(
        "slow-g", {"tool": "echo", "args": {"value": "first"}}, {"tool": "waits", "args": {}}, parallel=False)]})
    await user.open("/run?sequence=slow")
    user.find(marker="run-button").click()
    await user.should_see(marker="tool-0-1", retries=100)
    user.find(marker="tool-0-1").click()
    await user.should_see(marker="detail-args")
    await within(tool.started.wait(), "the tool to start")
    await user.should_not_see(marker="detail-result")
    tool.release.set()
    await user.should_see(marker="detail-result", retries=100)  # the same panel, refreshed live
    await user.should_see("Finished · 2 of 2 tools succeeded", retries=100)
    assert the_panel(user).selected == (0, 1)
    assert "released-result" in detail_texts(user)
    cards = {c.tool_key: c.selected for c in user.find(kind=ToolCard).elements}
    assert cards == {(0, 0): False, (0, 1): True}


async def test_a_retry_counts_down_to_the_next_try(user: User):
    engine = app_ctx().engine
    tool = FailsWhenToldThenWaits()
    engine.registry.add(tool)
    engine.runner.caller.backoff = 30.0  # a pause long enough to read; the run is stopped below
    await save({"name": "flaky2", "groups": [group("flaky2-g", {"tool": "fails_when_told"}, on_error="retry")]})
    await user.open("/run?sequence=flaky2")
    user.find(marker="run-button").click()
    await user.should_see(marker="tool-0-0", retries=100)
    await within(tool.started.wait(), "the tool to start")
    tool.fail.set()  # the run page listens by now, so it gets the retry event with its delay
    await user.should_see("attempt 2 of 3 · next try in", retries=100)
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="detail-retry")
    (line,) = user.find(marker="detail-retry").elements
    assert re.fullmatch(r"Retrying · attempt 2 of 3 · next try in \d+ s · last error: the server said 503", line.text)
    (run,) = await engine.list_runs()
    await engine.stop(run.run_id)
    await user.should_see("Stopped", retries=100)


def test_retry_words_count_down_from_the_events_delay():
    record = ToolRecord(index=0, tool="t", tool_call_id="c", status="running", attempts=1, error="boom")
    event = ToolRetrying(run_id="r", group=0, group_name="g", tool=0, tool_name="t", status="running", attempt=2,
                         of=3, delay=10.0, error="boom", at=100.0)
    parsed = RetryInfo.from_event(event)
    assert parsed is not None
    key, info = parsed
    assert key == (0, 0)
    assert retry_words(record, info, 100.0) == "Retrying · attempt 2 of 3 · next try in 10 s · last error: boom"
    assert retry_words(record, info, 109.2) == "Retrying · attempt 2 of 3 · next try in 1 s · last error: boom"
    assert retry_words(record, info, 111.0) == "Retrying · attempt 2 of 3 · trying again now · last error: boom"
    record.attempts = 2
    assert retry_words(record, info, 111.0, prefix=False) == "attempt 2 of 3 · last error: boom"
    record.attempts = 1
    assert retry_words(record, None, 111.0) == "Retrying · attempt 2 of 3 · next try soon · last error: boom"


class FailsWithDetails(ModelTool):
    name = "fails_loudly"
    description = "always fails, with technical details"
    Args: ClassVar = FlakyArgs

    async def call(self, args: dict, ctx: ToolContext) -> str:
        raise ToolError("The server refused the login.\nHTTP 401 Unauthorized\nat auth.py line 3")


class WaitsForTheTest(ModelTool):
    name = "waits"
    description = "waits until the test lets it finish"
    Args: ClassVar = FlakyArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def call(self, args: dict, ctx: ToolContext) -> str:
        self.started.set()
        await self.release.wait()
        return "released-result"


class FailsWhenToldThenWaits(ModelTool):
    name = "fails_when_told"
    description = "fails its first attempt when the test says so"
    Args: ClassVar = FlakyArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.fail = asyncio.Event()
        self.attempts = 0

    async def call(self, args: dict, ctx: ToolContext) -> str:
        self.attempts += 1
        self.started.set()
        if self.attempts == 1:
            await self.fail.wait()
            raise ToolError("the server said 503")
        await asyncio.Event().wait()  # the second attempt never ends: the test stops the run
        return "never"


def test_a_tool_a_person_did_not_approve_reads_denied_by_you_not_failed():
    from gui.core.runs.records import ToolRecord
    from gui.ui.components.run.status import LOOKS, tool_state

    denied = ToolRecord(index=0, tool="cmd_run", tool_call_id="c", status="failed", error="denied by the user",
                        denied=True)
    crashed = ToolRecord(index=0, tool="cmd_run", tool_call_id="c", status="failed", error="boom")
    assert (tool_state(denied), LOOKS[tool_state(denied)].word) == ("denied", "Denied by you")
    assert tool_state(crashed) == "failed"
