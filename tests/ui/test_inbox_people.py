"""The inbox per person (issue 26), with NiceGUI's simulated user: on the desktop a step that names
approvers looks and answers as any other (one person decides); on a team server (a directory, and the
signed-in person a sign-in would give: here set by the test) each person sees what needs them and what
waits on others, and an approval of two is kept after the first and resolved at the second."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction
from support.team_directory import TEAM, Team
from support.ui import R, common, engine, engine_open, only, shell  # noqa: F401  (engine_open: autouse)
from support.waiting import wait_until

import gui.ui.signed_in
from gui.core.asks import ElicitationField, ElicitationRequest, InteractionRecord
from gui.core.people import Person
from gui.core.sequences import Asking


async def _ended(engine: Any, iid: str) -> InteractionRecord | None:
    record: InteractionRecord | None = await engine.get_interaction(iid)
    return record if record is not None and record.status != "pending" else None


GATED = Asking(approvers=("role:oncall",), required=2)


def signed_in_as(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The page's person as a team server's sign-in would put them on its request."""
    person = Person(name, frozenset(TEAM[name]))
    monkeypatch.setattr(gui.ui.signed_in, "person_of", lambda scope: person)


async def test_on_the_desktop_a_gated_step_looks_and_answers_as_always(user: User) -> None:
    await user.open("/inbox")
    await engine().interactions.request(shell("d1", asking=GATED))
    await user.should_see(marker="approve", retries=R)
    await user.should_not_see(marker="people-line")
    await user.should_not_see("Waiting on others")
    user.find(marker="approve").click()
    await user.should_see("You're all caught up.", retries=R)
    assert (await engine().get_interaction("d1")).status == "resolved"


async def test_two_people_each_see_it_as_theirs_and_the_second_approval_resolves_it(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "ana")
    await engine().interactions.request(shell("t1", asking=GATED))
    await user.open("/inbox")
    await user.should_see("0 of 2 approvals", retries=R)
    await user.should_see("Waiting on others (0)", retries=R)
    user.find(marker="approve").click()
    await user.should_see("Your approval is kept (1 of 2 approvals)", retries=R)
    await user.should_see("1 of 2 approvals", retries=R)  # the count above it is redrawn, not left at 0
    await user.should_not_see("0 of 2 approvals")
    await user.should_see("Waiting on others (1)", retries=R)
    stored = await engine().get_interaction("t1")
    assert stored.status == "pending" and [a.person for a in stored.approvals] == ["ana"]

    signed_in_as(monkeypatch, "li.wei")
    await user.open("/inbox")
    await user.should_see("1 of 2 approvals", retries=R)
    await user.should_see("Approved by ana at", retries=R)
    user.find(marker="approve").click()
    await user.should_see("You're all caught up.", retries=R)
    ended = await engine().get_interaction("t1")
    assert ended.status == "resolved" and [a.person for a in ended.approvals] == ["ana", "li.wei"]


async def test_an_outsider_sees_it_waiting_on_others_and_cannot_answer_it(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "runner")
    await engine().interactions.request(shell("o1", asking=GATED))
    await user.open("/inbox")
    await user.should_see("You're all caught up.", retries=R)
    await user.should_see("Waiting on others (1)", retries=R)


async def test_waiting_on_others_says_how_many_approvals_from_whom_not_everyone(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two approvals from any people with the role, not everyone with it: the words say so."""
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "runner")
    await engine().interactions.request(shell("w1", asking=GATED))
    await user.open("/inbox")
    await user.should_see("Waiting on others (1)", retries=R)
    (row,) = [e for e in next(iter(user.find(marker="waiting-list").elements)).descendants()
              if "inbox-row-w1" in e._markers]
    UserInteraction(user, {row}, None).click()
    await user.should_see(marker="waiting-on-others", retries=R)
    (said,) = user.find(marker="waiting-on-others").elements
    assert said.text == "Waiting on others: 0 of 2 approvals from people with the role oncall"


async def test_who_started_the_run_may_deny_it_from_the_inbox_but_not_approve_it(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "ana")
    await engine().interactions.request(shell("s1", asking=GATED, started_by="ana"))
    await user.open("/inbox/s1")
    await user.should_see(marker="approve-off", retries=R)
    await user.should_see("You started this run, so someone else must approve this step. You may still choose "
                          "Don't run.")
    approve = only(user, "approve")
    assert not approve.enabled and approve.props.get("color") == "grey-7" and "seqdesk-off" in approve.classes
    assert only(user, "deny").enabled and only(user, "deny-reason").enabled
    user.find(marker="approve").click()  # pressed anyway (a key, a stale page): nothing is sent
    assert (await engine().get_interaction("s1")).status == "pending"
    user.find(marker="deny-reason").type("not today")
    user.find(marker="deny").click()
    await user.should_not_see(marker="approve-off", retries=R)
    ended = await engine().get_interaction("s1")
    assert ended.status == "resolved" and ended.result.response.decision == "denied"
    assert ended.result.response.reason == "not today"


async def test_who_started_the_run_is_told_so_once(user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason under the held Approve says it (with what they may still do): the people line does not
    say it a second time above it."""
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "ana")
    await engine().interactions.request(shell("s2", asking=GATED, started_by="ana"))
    await user.open("/inbox/s2")
    await user.should_see(marker="approve-off", retries=R)
    await user.should_see(marker="people-line")
    said = [e for e in user.find("You started this run").elements if isinstance(e, ui.label)]
    assert len(said) == 1, [e.text for e in said]


async def test_an_approver_who_approved_one_of_two_may_still_deny_it(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "ana")
    await engine().interactions.request(shell("a1", asking=GATED))
    await user.open("/inbox")
    user.find(marker="approve").click()
    await user.should_see("Your approval is kept (1 of 2 approvals)", retries=R)
    await user.should_see("You already approved it; the next approval must come from someone else.", retries=R)
    assert not only(user, "approve").enabled and only(user, "deny").enabled

    await user.open("/inbox")  # opened again from "Waiting on others"
    await user.should_see("Waiting on others (1)", retries=R)
    waiting_row = next(iter(user.find(marker="waiting-list").elements)).descendants()
    (row,) = [e for e in waiting_row if "inbox-row-a1" in e._markers]
    UserInteraction(user, {row}, None).click()  # the row in "Waiting on others" (not its twin in "Started by you")
    await user.should_see(marker="approve-off", retries=R)
    user.find(marker="deny").click()
    ended = await wait_until(lambda: _ended(engine(), "a1"), "a1 ended")
    assert ended.status == "resolved" and ended.result.response.decision == "denied"
    assert [a.person for a in ended.approvals] == ["ana"]


async def test_someone_without_the_approver_role_is_told_so_and_nothing_is_sent(
        user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    """The detail asks the person it was drawn for: one without the approver role gets the page's notice
    (which role it needs), nothing reaches the engine, and the form stays theirs to look at."""
    monkeypatch.setattr(engine().interactions, "directory", Team(TEAM))
    signed_in_as(monkeypatch, "runner")
    form = ElicitationRequest(**common("e1"), server_name="shop", message="Who is it for?",
                              fields=[ElicitationField(name="name", type="string", required=True)])
    await engine().interactions.request(form)
    await user.open("/inbox/e1")
    await user.should_see(marker="elicitation-form", retries=R)
    user.find(marker="field-name").type("Bo")
    user.find(marker="accept").click()
    await user.should_see("You may not do this: it needs the approver role", retries=R)
    await user.should_not_see(marker="answer-problem")
    assert only(user, "accept").enabled  # unlocked again: nothing was sent
    record = await engine().get_interaction("e1")
    assert record is not None and record.status == "pending"
