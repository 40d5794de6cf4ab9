"""The inbox, driven through the real engine as a person would, with NiceGUI's simulated user.

Requests come either from a real run (a sequence with a `cmd_run` step) or straight from
`engine.interactions.request(...)`; the test acts in the page and checks what was stored and
what the waiting tool got. Nothing sleeps: the page is awaited with `should_see(retries=...)`,
the engine with bus events.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from nicegui import ui
from nicegui.testing import User
from support.ui import (  # noqa: F401  (engine_open: autouse, wait for the engine)
    R,
    common,
    engine,
    engine_open,
    expect,
    now_ms,
    only,
    shell,
    start_command_run,
    wait,
)
from support.waiting import wait_until

from gui.core.asks.interactions import (
    ApprovalResponse,
    ElicitationField,
    ElicitationRequest,
    ExecutionSource,
    Question,
    QuestionOption,
    QuestionRequest,
    ResolvedResult,
    ToolApprovalRequest,
    ToolSource,
)
from gui.wording.requests import clock


def question(iid: str | None = None) -> QuestionRequest:
    return QuestionRequest(**common(iid), source=ToolSource(tool_call_id="c2", tool_name="ask_user"),
                           title="Deploy settings", questions=[
                               Question(question_id="why", prompt="Why deploy now?", response_type="text"),
                               Question(question_id="env", prompt="Which environment?", response_type="single_select",
                                        options=[QuestionOption(value="prod", label="Production",
                                                                description="customers see it"),
                                                 QuestionOption(value="stage", label="Staging")]),
                               Question(question_id="checks", prompt="Which checks?", response_type="multi_select",
                                        options=[QuestionOption(value="lint", label="Lint"),
                                                 QuestionOption(value="tests", label="Tests")]),
                           ])


def form(iid: str | None = None, **extra) -> ElicitationRequest:
    return ElicitationRequest(
        **common(iid, **extra), source=ExecutionSource(), server_name="Calendar server",
        message="Which **meeting** should I book?", fields=[
            ElicitationField(name="title", type="string", title="Title", required=True),
            ElicitationField(name="minutes", type="number", title="Length", default=30),
            ElicitationField(name="remote", type="boolean", title="Remote"),
            ElicitationField(name="room", type="string", title="Room", enum=["A", "B"], default="A"),
        ])


async def result_of(iid: str):
    record = await engine().interactions.get(iid)
    assert record is not None
    return record


# -- approvals through a real run --------------------------------------------------------------

async def test_run_once_approves_the_command_and_the_run_succeeds(user: User):
    await user.open("/inbox")
    await user.should_see("You're all caught up.")
    run_id = await start_command_run("echo hello")
    await user.should_see("Run a command", retries=R)
    await user.should_see("echo hello", retries=R)
    await user.should_see(marker="run-link")
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    event = await wait(finished)
    assert event.data["status"] == "succeeded"
    assert (await engine().get_run(run_id)).outputs["said"] == "hello"
    await user.should_see("You're all caught up.", retries=R)


async def test_dont_run_with_a_reason_passes_the_reason_to_the_tool(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("rm -rf /tmp/nothing-here")
    await user.should_see(marker="deny", retries=R)
    user.find(marker="deny-reason").type("use the trash instead")
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="deny").click()
    assert (await wait(finished)).data["status"] == "failed"
    run = await engine().get_run(run_id)
    error = run.groups[0].tools[0].error
    assert "denied" in error and "use the trash instead" in error


async def test_always_allow_sets_the_mode_and_confirms_on_screen(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo ok")
    await user.should_see(marker="always-allow", retries=R)
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)  # a wider approval is chosen, then confirmed
    await user.should_see("Every cmd_run request, in every sequence, whatever it runs, until you take it back in "
                          "Settings")
    user.find(marker="scope-choice").elements.pop().set_value("tool")  # the written-out choice above
    user.find(marker="scope-confirm").click()
    assert (await wait(finished)).data["status"] == "succeeded"
    await user.should_see("Now always allowed: cmd_run", retries=R)
    assert engine().modes.get("cmd_run") == "always-allow"
    user.find(marker="allowed-undo").click()
    await user.should_see("cmd_run asks again before it runs.", retries=R)
    assert engine().modes.get("cmd_run") == "ask"


async def test_tool_approval_shows_input_and_marks_the_explanation_not_verified(user: User):
    request = ToolApprovalRequest(**common("tool-1"), source=ToolSource(tool_call_id="c", tool_name="file_write"),
                                  validated_input={"path": "/tmp/x.txt", "content": "hi"},
                                  tool_description="Writes a file.", model_explanation="Saving the report.")
    handle = await engine().interactions.request(request)
    await user.open("/inbox/tool-1")
    await user.should_see("Use tool: file_write")
    await user.should_see("/tmp/x.txt")
    await user.should_see("Writes a file.")
    await user.should_see("The caller says (not verified)")
    user.find(marker="approve").click()
    result = await asyncio.wait_for(handle.result(), 5)
    assert isinstance(result, ResolvedResult) and result.response.decision == "approved"


async def test_whole_numbers_read_as_a_person_writes_them_in_the_list_and_the_request(user: User):
    """A number a form or a JSON answer carried as a float (30.0) is shown 30, nested ones too; a fraction stays."""
    request = ToolApprovalRequest(**common("tool-n"), source=ToolSource(tool_call_id="c", tool_name="sleep"),
                                  validated_input={"seconds": 30.0, "limits": {"size": 2.0}, "ratio": 0.5})
    await engine().interactions.request(request)
    await user.open("/inbox/tool-n")
    await user.should_see(marker="asked-seconds", retries=R)
    assert only(user, "asked-seconds").text == "30"
    assert json.loads(only(user, "asked-limits").text) == {"size": 2} and "2.0" not in only(user, "asked-limits").text
    assert only(user, "asked-ratio").text == "0.5"
    await user.should_see("30, ", retries=R)  # the list's one-line preview ("Seconds: 30, …")
    await user.should_not_see("30.0")


def test_the_run_views_say_whole_numbers_as_written_too():
    from gui.ui.components.run.status import preview
    from gui.ui.components.run.summary import plain
    from gui.ui.components.run.value import as_json_text, inline_text

    assert inline_text(30.0) == plain(30.0) == preview(30.0) == "30"
    assert "2.0" not in as_json_text({"size": 2.0}) and inline_text(0.5) == "0.5"
    assert inline_text(1e300) == "1e+300"  # past exact whole numbers a float keeps its JSON form


async def test_a_servers_tool_names_its_server_as_named_in_settings_with_where_it_is_beside(user: User):
    request = ToolApprovalRequest(**common("tool-s"), source=ToolSource(tool_call_id="c", tool_name="files.read_file"),
                                  validated_input={"path": "/tmp/a"}, server_address="/usr/local/bin/npx")
    await engine().interactions.request(request)
    await user.open("/inbox/tool-s")
    await user.should_see(marker="server-name", retries=R)
    assert only(user, "server-name").text == "files"  # what the person named it, not the program's path
    assert only(user, "server-address").text == "the program /usr/local/bin/npx"


async def test_a_requests_run_is_named_by_when_it_started_its_id_kept_in_the_tooltip(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo hello")
    started = clock(int((await engine().get_run(run_id)).created_at * 1000))
    await user.should_see(f"run started {started}", retries=R)
    link = only(user, "run-link")
    assert link.text == f"run started {started}" and run_id not in link.text
    assert f"Watch this run live (Run {run_id})" in [e.text for e in user.find(kind=ui.tooltip).elements]
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    user.find(marker="approve").click()
    await wait(finished)
    user.find(marker="tab-history").click()
    (ended,) = (await engine().interaction_page(status="ended")).items
    await user.should_see(marker=f"history-row-{ended.interaction_id}", retries=R)
    with user.scope(marker=f"history-row-{ended.interaction_id}"):
        await user.should_see(f"run started {started}", retries=R)


async def test_a_requests_run_that_cannot_be_looked_up_keeps_its_short_id_and_logs_no_error(
        user: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    from gui.core.errors import Unavailable
    from gui.core.runs import short_id

    asked: list[str] = []

    async def away(run_id: str) -> None:
        asked.append(run_id)
        raise Unavailable("the team's server did not answer")

    monkeypatch.setattr(engine(), "get_run", away)
    await user.open("/inbox")
    run_id = await start_command_run("echo hello")
    await user.should_see(marker="run-link", retries=R)
    await wait_until(lambda: asked == [run_id], "the link to ask for its run")
    for _ in range(3):  # the lookup's task ends: give the loop a few turns to report what it raised
        await asyncio.sleep(0)
    assert only(user, "run-link").text == f"run {short_id(run_id)}"
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text


# -- questions and forms ---------------------------------------------------------------------------

async def test_question_form_refuses_incomplete_answers_then_sends_all_kinds(user: User):
    handle = await engine().interactions.request(question("q-1"))
    await user.open("/inbox")
    await user.should_see("Deploy settings")
    user.find(marker="send-answer").click()
    await user.should_see("every question must be answered", retries=R)
    assert (await result_of("q-1")).status == "pending"
    user.find(marker="q-why").type("release day")
    user.find("Production").click()
    user.find(marker="q-checks-tests").click()
    user.find(marker="send-answer").click()
    result = await asyncio.wait_for(handle.result(), 5)
    answers = {a.question_id: a.value for a in result.response.answers}
    assert answers == {"why": "release day", "env": "prod", "checks": ["tests"]}
    await user.should_see("Answer sent.", retries=R)


async def test_elicitation_send_returns_typed_values_and_requires_required_fields(user: User):
    handle = await engine().interactions.request(form("f-1"))
    await user.open("/inbox/f-1")
    await user.should_see("Form from Calendar server")
    await user.should_see(marker="server-name")
    user.find(marker="accept").click()
    await user.should_see("Fill in the required fields before sending: Title", retries=R)
    assert next(iter(user.find(marker="field-title").elements)).error == "Fill this in: it is required"
    assert (await result_of("f-1")).status == "pending"
    user.find(marker="field-title").type("Standup")
    user.find(marker="field-remote").click()
    user.find(marker="accept").click()
    result = await asyncio.wait_for(handle.result(), 5)
    assert result.response.action == "accept"
    assert result.response.values == {"title": "Standup", "minutes": 30, "remote": True, "room": "A"}


@pytest.mark.parametrize(("marker", "action"), [("decline", "decline"), ("cancel", "cancel")])
async def test_elicitation_dont_share_declines_and_dismiss_cancels(user: User, marker: str, action: str):
    handle = await engine().interactions.request(form("f-2"))
    await user.open("/inbox/f-2")
    await user.should_see("Form from Calendar server")
    user.find(marker=marker).click()
    result = await asyncio.wait_for(handle.result(), 5)
    assert result.response.action == action and result.response.values == {}


async def test_url_elicitation_shows_the_address_with_an_open_button(user: User):
    request = ElicitationRequest(**common("u-1"), source=ExecutionSource(), server_name="Auth server",
                                            message="Sign in to continue.", url="https://example.com/sign-in")
    handle = await engine().interactions.request(request)
    await user.open("/inbox/u-1")
    await user.should_see("https://example.com/sign-in")
    await user.should_see(marker="open-url")
    user.find(marker="accept").click()
    assert (await asyncio.wait_for(handle.result(), 5)).response.action == "accept"


# -- requests that end elsewhere ---------------------------------------------------------------

async def test_answering_a_request_answered_elsewhere_says_already_answered(user: User):
    await engine().interactions.request(shell("s-1"))
    await user.open("/inbox/s-1")
    await user.should_see("rm -rf build/")
    await engine().interactions.respond("s-1", ApprovalResponse(decision="denied"))
    user.find(marker="approve").click()  # may already be disabled by the live update: both paths are fine
    await user.should_see("Already answered", retries=R)
    assert not next(iter(user.find(marker="approve").elements)).enabled
    assert (await result_of("s-1")).result.response.decision == "denied"


async def test_a_request_that_expires_while_open_disables_its_buttons(user: User):
    ended = expect("interaction.ended", lambda e: e.data["interaction_id"] == "s-2")
    await engine().interactions.request(shell("s-2", expires_at=now_ms() + 1500))
    await user.open("/inbox/s-2")
    await user.should_see("If nobody answers by")
    await user.should_see("the command won't run.")
    assert (await wait(ended)).data["status"] == "expired"
    await user.should_see("Expired at", retries=R)
    await user.should_see("nothing was sent")
    await user.should_see(marker="detail-state", content="Expired", retries=R)
    assert not next(iter(user.find(marker="approve").elements)).enabled
    await user.should_not_see("If nobody answers by")  # no longer so: the banner says what happened


async def test_an_expired_request_opened_later_shows_when_it_expired(user: User):
    ended = expect("interaction.ended", lambda e: e.data["interaction_id"] == "s-3")
    await engine().interactions.request(shell("s-3", expires_at=now_ms() - 1000))
    await wait(ended)
    await user.open("/inbox/s-3")
    await user.should_see("Expired at")
    await user.should_see("nothing was sent")
    await user.should_see("nobody answered, so the command did not run")
    assert not next(iter(user.find(marker="approve").elements)).enabled


async def test_new_requests_appear_and_answered_ones_leave_without_reload(user: User):
    await user.open("/inbox")
    await user.should_see("Needs you (0)")
    await engine().interactions.request(shell("live-1"))
    await user.should_see(marker="inbox-row-live-1", retries=R)
    await user.should_see("Needs you (1)", retries=R)
    await engine().interactions.respond("live-1", ApprovalResponse(decision="approved"))
    await user.should_not_see(marker="inbox-row-live-1", retries=R)
    await user.should_see("Needs you (0)", retries=R)


async def test_history_shows_outcomes_reasons_and_filters(user: User):
    service = engine().interactions
    await service.request(shell("h-1"))
    await service.respond("h-1", ApprovalResponse(decision="denied", reason="not today"))
    await service.request(question("h-2"))
    await service.cancel("h-2", "turn_stopped")
    await user.open("/inbox")
    user.find(marker="tab-history").click()
    await user.should_see(marker="history-row-h-1", retries=R)
    await user.should_see("Reason: not today")
    await user.should_see("Reason: the run was stopped")  # the chip says Cancelled: the line says why, once
    user.find(marker="filter-status").elements.pop().value = "cancelled"
    await user.should_not_see(marker="history-row-h-1", retries=R)
    await user.should_see(marker="history-row-h-2")


async def test_many_pending_requests_are_paginated(user: User):
    base = now_ms()
    for i in range(120):
        await engine().interactions.request(shell(f"p-{i:03d}", created_at=base + i))
    await user.open("/inbox")
    await user.should_see("Needs you (120)")
    await user.should_see("1–50 of 120")
    assert len(user.find(marker="inbox-row").elements) == 50
    await user.should_see(marker="inbox-row-p-119")  # newest first
    await user.should_not_see(marker="inbox-row-p-000")


async def test_after_the_last_answer_the_inbox_points_back_to_the_run(user: User):
    await user.open("/inbox")
    run_id = await start_command_run("echo back")
    await user.should_see(marker="approve", retries=R)
    user.find(marker="approve").click()
    await user.should_see("Your answer was sent. Nothing else is waiting for you.", retries=R)
    link = next(iter(user.find(marker="see-run").elements))
    assert link.props["href"] == f"/run/{run_id}"


async def test_a_new_request_joins_the_list_beside_the_ones_shown(user: User):
    await engine().interactions.request(shell("older"))
    await user.open("/inbox")
    await user.should_see(marker="inbox-row-older")
    await engine().interactions.request(shell("newer"))
    await user.should_see(marker="inbox-row-newer", retries=R)
    await user.should_see("Needs you (2)", retries=R)
    await user.should_see(marker="inbox-row-older")
    await engine().interactions.respond("older", ApprovalResponse(decision="approved"))
    await user.should_not_see(marker="inbox-row-older", retries=R)
    await user.should_see(marker="inbox-row-newer")
