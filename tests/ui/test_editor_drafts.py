"""Drafts tell the truth: a draft exists only while the content differs from what is saved, looking
at another view changes nothing, and a Run that cannot be pressed says why."""

from __future__ import annotations

import json

from nicegui.testing import User
from support.editor import R, element, one_group, save
from support.ui import app_ctx

from gui.core.sequences.help import EXAMPLE
from gui.ui.editor import storage
from gui.ui.editor.view import RUN_WHY_CHANGED, RUN_WHY_NEW


async def _saved_example(user: User) -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-2", retries=R)


async def test_looking_at_the_text_view_of_a_saved_sequence_makes_no_draft(user: User) -> None:
    await _saved_example(user)
    user.find(marker="view-text").click()
    await user.should_see(marker="text-view", retries=R)
    assert storage.load("edit:check-three-nodes") is None
    assert element(user, "run").enabled
    user.find(marker="view-visual").click()
    await user.should_see(marker="group-2", retries=R)
    assert storage.load("edit:check-three-nodes") is None
    assert element(user, "run").enabled
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-2", retries=R)
    await user.should_not_see(marker="restored")
    assert element(user, "run").enabled


async def test_a_change_typed_back_to_what_is_saved_is_no_draft(user: User) -> None:
    await _saved_example(user)
    user.find(marker="seq-description").type(" more")
    assert storage.load("edit:check-three-nodes") is not None
    assert not element(user, "run").enabled
    assert element(user, "run-why").text == RUN_WHY_CHANGED
    with user.client:
        element(user, "seq-description").value = "Fetch the status of a node, dig deeper if needed"
    assert storage.load("edit:check-three-nodes") is None
    assert element(user, "run").enabled
    await user.should_not_see(marker="run-why")


async def test_a_text_view_draft_reopens_in_the_visual_view(user: User) -> None:
    await _saved_example(user)
    user.find(marker="view-text").click()
    editor = element(user, "text-view")
    doc = json.loads(editor.value)
    doc["description"] = "changed in the text"
    with user.client:
        editor.value = json.dumps(doc, indent=2)
    assert storage.load("edit:check-three-nodes") is not None
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="restored", retries=R)
    assert element(user, "seq-description").value == "changed in the text"
    assert element(user, "view-visual").visible
    tabs = next(iter(user.find(marker="view-visual").elements)).parent_slot.parent
    shown = tabs.value
    assert (shown.props.get("name") if hasattr(shown, "props") else shown) == "visual"
    storage.drop("edit:check-three-nodes")


async def test_a_run_that_cannot_be_pressed_says_why(user: User) -> None:
    await one_group(user)
    assert not element(user, "run").enabled
    assert element(user, "run-why").text == RUN_WHY_NEW
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    assert element(user, "run").enabled
    await user.should_not_see(marker="run-why")
