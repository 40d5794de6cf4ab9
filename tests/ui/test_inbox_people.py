"""The inbox per person (issue 26), with NiceGUI's simulated user: on the desktop a step that names
approvers looks and answers as any other (one person decides); on a team server (a directory, and the
signed-in person a sign-in would give: here set by the test) each person sees what needs them and what
waits on others, and an approval of two is kept after the first and resolved at the second."""

from __future__ import annotations

import pytest
from nicegui.testing import User
from support.team_directory import TEAM, Team
from support.ui import R, engine, engine_open, shell  # noqa: F401  (engine_open: autouse)

import gui.ui.signed_in
from gui.core.people import Person
from gui.core.sequences import Asking

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
