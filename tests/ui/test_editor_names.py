"""Names that do not collide by accident: the example, a copy and an import get free names and say
so; every naming conflict of a save is shown at once, each at its own field, naming who holds it."""

from __future__ import annotations

import json

from nicegui import ui
from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User
from support.editor import R, element, error_of, find, new_editor, save, set_value
from support.ui import app_ctx

from gui.core.sequences.help import EXAMPLE


async def _saved_example() -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))


async def test_starting_from_the_example_when_it_is_saved_proposes_free_names_and_saves(user: User) -> None:
    await _saved_example()
    await user.open("/sequences/new?example=1")
    await user.should_see(marker="group-2", retries=R)
    assert element(user, "seq-name").value == "check-three-nodes-2"
    assert element(user, "group-1", "group-name").value == "fetch-one-node-2"
    await user.should_see("'fetch-one-node' → 'fetch-one-node-2'", retries=R)
    await save(user)
    await user.should_see("Saved 'check-three-nodes-2'", retries=R)


async def test_the_example_from_the_empty_editor_gets_free_names_too(user: User) -> None:
    await _saved_example()
    await new_editor(user)
    user.find(marker="empty-example").click()
    await user.should_see(marker="group-2", retries=R)
    assert element(user, "group-2", "group-name").value == "dig-deeper-2"
    await user.should_see(marker="renamed-note", retries=R)


async def test_every_naming_conflict_shows_at_once_at_its_field_with_its_holder(user: User) -> None:
    await _saved_example()
    await user.open("/sequences/new?example=1")
    await user.should_see(marker="group-2", retries=R)
    set_value(user, ("seq-name",), "check-three-nodes")
    set_value(user, ("group-1", "group-name"), "fetch-one-node")
    set_value(user, ("group-2", "group-name"), "dig-deeper")
    await save(user)
    await user.should_see("3 problems", retries=R)
    for path in (("seq-name",), ("group-1", "group-name"), ("group-2", "group-name")):
        assert "'check-three-nodes'" in error_of(user, *path), path
    assert "already saved" in error_of(user, "seq-name")
    assert "('check-three-nodes-2' is free)" in error_of(user, "seq-name")  # a free name is proposed
    assert "('dig-deeper-2' is free)" in error_of(user, "group-2", "group-name")


async def test_importing_a_file_whose_names_are_taken_offers_free_ones(user: User) -> None:
    await _saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    doc = json.loads(EXAMPLE)
    doc["name"] = "another"  # its group names are still taken by check-three-nodes
    upload_el = next(iter(user.find(marker="import-upload").elements))
    assert isinstance(upload_el, ui.upload)
    with user.client:
        await upload_el.handle_uploads([SmallFileUpload(name="s.json", content_type="application/json",
                                                        _data=json.dumps(doc).encode())])
    await user.should_see(marker="import-names", retries=R)
    await user.should_see("Group 'fetch-one-node' → 'fetch-one-node-2'", retries=R)
    find(user, "import-names", "import-copy").click()
    await user.should_see("Imported 'another'", retries=R)
    stored = await app_ctx().engine.get("another")
    assert stored is not None and [g.name for g in stored.groups] == ["fetch-one-node-2", "dig-deeper-2"]


async def test_importing_over_a_saved_name_can_keep_both(user: User) -> None:
    await _saved_example()
    await user.open("/")
    await user.should_see("check-three-nodes", retries=R)
    upload_el = next(iter(user.find(marker="import-upload").elements))
    with user.client:
        await upload_el.handle_uploads([SmallFileUpload(name="s.json", content_type="application/json",
                                                        _data=EXAMPLE.encode())])
    await user.should_see(marker="replace-dialog", retries=R)
    user.find(marker="import-copy").click()
    await user.should_see("Imported 'check-three-nodes-2'", retries=R)
    assert await app_ctx().engine.get("check-three-nodes") is not None


async def test_duplicating_a_group_in_the_editor_proposes_a_name_free_everywhere(user: User) -> None:
    await _saved_example()
    await user.open("/sequences/new?example=1")
    await user.should_see(marker="group-2", retries=R)
    set_value(user, ("group-1", "group-name"), "fetch-one-node-2")
    find(user, "group-1", "group-duplicate").click()
    assert element(user, "group-2", "group-title").text == "fetch-one-node-3"
