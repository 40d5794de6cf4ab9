"""Who answers a group's requests, in the editor (issue 26): on a team server a saved sequence with approvers
opens in the visual editor with every key kept, its fields say them in words, a change is saved in the
format, and a mistake is shown on the field it concerns. On the desktop (one person, who answers
everything) no such fields are drawn: a group written for a team says in one line what it holds, kept as
written, and one that names nobody says nothing of it."""

from __future__ import annotations

import json

import pytest
from nicegui.testing import User
from support.editor import R, element, error_of, one_group, save, set_value
from support.ui import app_ctx

import gui.ui.pages.routes
import gui.ui.signed_in
from gui.context import AppContext
from gui.core.people import AUTHOR, RUNNER, Person

STEP = {"tool": "echo", "args": {"value": "hi"}, "approvers": ["person:sam"], "required": 1}
SEQUENCE = {"name": "gated", "description": "", "groups": [{
    "name": "gated-go", "approvers": ["role:oncall", "person:li.wei"], "required": 2, "remind_after": "30m",
    "tools": json.dumps(STEP) + " ;"}]}


@pytest.fixture
def team(monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor as a team server draws it (its pages read `AppContext.team` when they are drawn), for an
    author signed in (as a team server's sign-in would put them on the page's request)."""
    monkeypatch.setattr(AppContext, "team", property(lambda self: True))
    author = Person("li.wei", frozenset({AUTHOR, RUNNER}))
    monkeypatch.setattr(gui.ui.pages.routes, "person_of", lambda scope: author)
    monkeypatch.setattr(gui.ui.signed_in, "person_of", lambda scope: author)


async def test_on_the_desktop_a_group_says_nothing_of_answerers(user: User) -> None:
    await one_group(user)
    await user.should_see(marker="group-name", retries=R)
    await user.should_not_see(marker="answerers")
    await user.should_not_see(marker="group-approver-people")
    await user.should_not_see(marker="group-required")
    await user.should_not_see(marker="group-asking-desktop")


async def test_on_the_desktop_a_group_written_for_a_team_says_so_in_a_line_and_keeps_it(user: User) -> None:
    engine = app_ctx().engine
    await engine.create(SEQUENCE)
    await user.open("/sequences/gated/edit")
    await user.should_see(marker="group-asking-desktop", retries=R)
    await user.should_see("On this computer you answer its requests yourself", retries=R)
    await user.should_see('approvers ["role:oncall", "person:li.wei"], required 2, remind_after "30m"')
    await user.should_not_see(marker="answerers")
    await user.should_not_see(marker="group-approver-people")
    await user.should_not_see("Answered by li.wei")  # the summary says no one else answers here either
    set_value(user, ("group-1", "group-description"), "kept")
    await save(user)
    await user.should_see("Saved 'gated'", retries=R)
    group = (await engine.get("gated")).groups[0]
    assert group.asking is not None and group.asking.required == 2 and group.asking.remind_after == "30m"


@pytest.mark.usefixtures("team")
async def test_a_sequence_with_approvers_opens_shows_them_in_words_and_saves_them_unchanged(user: User) -> None:
    engine = app_ctx().engine
    await engine.create(SEQUENCE)
    await user.open("/sequences/gated/edit")
    await user.should_see("Answered by li.wei or anyone with the role oncall · 2 must approve", retries=R)
    await user.should_see(marker="group-approver-people", retries=R)
    assert element(user, "group-1", "group-approver-people").value == ["li.wei"]
    assert element(user, "group-1", "group-approver-roles").value == ["oncall"]
    assert element(user, "group-1", "group-required").value == 2
    assert element(user, "group-1", "group-remind-after").value == "30m"
    await user.should_see('This step\'s own answerers (edit them in the Text view): approvers ["person:sam"], '
                          "required 1", retries=R)
    set_value(user, ("group-1", "group-required"), 3)
    await save(user)
    await user.should_see("Saved 'gated'", retries=R)
    stored = await engine.get("gated")
    group = stored.groups[0]
    assert group.asking is not None and group.asking.required == 3
    assert set(group.asking.approvers) == {"person:li.wei", "role:oncall"} and group.asking.remind_after == "30m"
    assert group.tools[0].asking is not None and group.tools[0].asking.approvers == ("person:sam",)


@pytest.mark.usefixtures("team")
async def test_more_approvals_than_people_named_is_shown_on_how_many(user: User) -> None:
    await one_group(user)
    set_value(user, ("group-1", "group-approver-people"), ["ana", "li.wei"])
    set_value(user, ("group-1", "group-required"), 3)
    await save(user)
    await user.should_see("fewer people (2)", retries=R)
    assert "fewer people (2)" in error_of(user, "group-1", "group-required")
