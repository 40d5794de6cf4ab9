"""The Schedules section of the Sequences page, seen through NiceGUI's simulated user."""

from __future__ import annotations

import json

from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx
from support.waiting import wait_until

GREET = {"name": "greet", "groups": [{"name": "hello", "in": {"who": "string"}, "out": {"said": "string"},
                                      "tools": json.dumps({"tool": "echo", "args": {"value": "hi $args.who"},
                                                           "as": "said"}) + " ;"}]}


async def error_of(element: ui.element, timeout: float = 5.0) -> str:
    """The error shown under a field, once the save's handler has set it (bounded wait on that state)."""
    await wait_until(lambda: "error-message" in element.props, "the field's error", timeout=timeout, every=0.02)
    return str(element.props["error-message"])


async def test_a_schedule_made_elsewhere_is_listed_with_next_run_and_can_be_paused_and_deleted(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await user.open("/")
    await user.should_see(marker="no-schedules")
    made = await engine.create_schedule("greet", {"who": "Ada"}, every="15m")
    await user.should_see(marker="schedule-greet", retries=100)
    await user.should_see("every 15m")
    await user.should_see('With who: "Ada"')
    await user.should_see("not run yet")
    user.find(marker="pause").click()
    await user.should_see(marker="paused", retries=50)
    assert (await engine.schedules.get(made.schedule_id)).paused
    user.find(marker="unpause").click()
    await user.should_not_see(marker="paused", retries=50)
    user.find(marker="delete-schedule").click()
    await user.should_see(marker="no-schedules", retries=50)
    assert await engine.list_schedules() == []


async def test_a_deleted_schedule_comes_back_with_undo_as_it_was(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    made = await engine.create_schedule("greet", {"who": "Ada"}, every="15m")
    await engine.pause_schedule(made.schedule_id, True)
    await user.open("/")
    await user.should_see(marker="schedule-greet", retries=100)
    user.find(marker="delete-schedule").click()
    await user.should_see(marker="no-schedules", retries=50)
    await user.should_see("Schedule for “greet” deleted.")
    assert await engine.list_schedules() == []
    user.find(marker="schedule-undo").click()
    await user.should_see(marker="schedule-greet", retries=100)
    [back] = await engine.list_schedules()
    assert (back.sequence, back.args, back.every, back.cron, back.paused) == ("greet", {"who": "Ada"}, 900, None, True)
    await user.should_see(marker="paused")
    await user.should_not_see(marker="schedule-undo-bar")


async def test_undo_says_why_when_the_schedule_cannot_be_made_again(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await engine.create_schedule("greet", {"who": "Ada"}, cron="*/5 * * * *")
    await user.open("/")
    await user.should_see(marker="schedule-greet", retries=100)
    user.find(marker="delete-schedule").click()
    await user.should_see(marker="no-schedules", retries=50)
    await engine.delete("greet")  # its sequence went away meanwhile
    user.find(marker="schedule-undo").click()
    await user.should_see("The schedule could not be made again", retries=50)
    assert await engine.list_schedules() == []


async def test_adding_a_schedule_in_the_app_saves_it_with_its_inputs(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await user.open("/")
    user.find(marker="add-schedule").click()
    await user.should_see(marker="schedule-sequence", retries=50)
    user.find(kind=ui.select, marker="schedule-sequence").elements.pop().set_value("greet")
    await user.should_see(marker="arg-who", retries=50)
    user.find(marker="arg-who").type("Bo")
    user.find(marker="schedule-amount").elements.pop().set_value(2)
    user.find(marker="schedule-unit").elements.pop().set_value("hours")
    user.find(marker="save-schedule").click()
    await user.should_see("Schedule saved", retries=50)
    [schedule] = await engine.list_schedules()
    assert (schedule.sequence, schedule.args, schedule.every) == ("greet", {"who": "Bo"}, 7200)
    await user.should_see("every 2h", retries=50)


async def test_a_bad_schedule_shows_the_problem_at_its_field_and_saves_nothing(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await user.open("/")
    user.find(marker="add-schedule").click()
    await user.should_see(marker="schedule-sequence", retries=50)
    user.find(marker="schedule-sequence").elements.pop().set_value("greet")
    await user.should_see(marker="arg-who", retries=50)
    user.find(marker="schedule-amount").elements.pop().set_value(5)
    user.find(marker="schedule-unit").elements.pop().set_value("seconds")
    user.find(marker="save-schedule").click()
    amount = user.find(marker="schedule-amount").elements.pop()
    assert "at most every 10s" in await error_of(amount)
    user.find(marker="schedule-how").elements.pop().set_value("cron")
    user.find(marker="schedule-cron").type('every "day" \\ <b>x</b>')
    user.find(marker="save-schedule").click()
    cron = user.find(marker="schedule-cron").elements.pop()
    shown = await error_of(cron)
    assert "is not a cron expression" in shown and '"day"' in shown and "<b>x</b>" in shown  # as typed, as text
    assert await engine.list_schedules() == []


async def test_an_empty_text_input_is_refused_under_that_input_and_nothing_is_saved(user: User):
    engine = app_ctx().engine
    await engine.create(GREET)
    await user.open("/")
    user.find(marker="add-schedule").click()
    await user.should_see(marker="schedule-sequence", retries=50)
    user.find(marker="schedule-sequence").elements.pop().set_value("greet")
    await user.should_see(marker="arg-who", retries=50)
    user.find(marker="arg-who").type("   ")
    user.find(marker="save-schedule").click()
    who = user.find(marker="arg-who").elements.pop()
    assert await error_of(who) == "is empty, and a schedule runs with nobody there to fill it in: give it a value"
    assert await engine.list_schedules() == []
    user.find(marker="arg-who").clear().type("Ada")
    user.find(marker="save-schedule").click()
    await user.should_see("Schedule saved", retries=50)
    assert "error-message" not in who.props
    [schedule] = await engine.list_schedules()
    assert schedule.args == {"who": "Ada"}
