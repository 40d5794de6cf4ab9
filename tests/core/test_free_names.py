"""Free names for copies, and every naming conflict of a document reported in one pass."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gui.core.door.catalog import Catalog
from gui.core.sequences.free_names import free_name, renamed_words, taken_names, with_free_names
from gui.core.sequences.help import EXAMPLE
from gui.core.sequences.problems import DslError
from gui.core.sequences.validator import parse_sequence
from gui.memory import MemorySequenceStore


def test_a_taken_name_gets_the_next_free_number() -> None:
    assert free_name("fetch-one-node", set()) == "fetch-one-node"
    assert free_name("fetch-one-node", {"fetch-one-node"}) == "fetch-one-node-2"
    assert free_name("fetch-one-node", {"fetch-one-node", "fetch-one-node-2"}) == "fetch-one-node-3"
    assert free_name("fetch-one-node-2", {"fetch-one-node-2"}) == "fetch-one-node-3"


def test_a_document_gets_free_distinct_names_and_says_which_changed() -> None:
    taken = taken_names([parse_sequence(EXAMPLE)])
    doc, renamed = with_free_names(json.loads(EXAMPLE), taken)
    assert doc["name"] == "check-three-nodes-2"
    assert [g["name"] for g in doc["groups"]] == ["fetch-one-node-2", "dig-deeper-2"]
    assert [(r.old, r.new, r.what) for r in renamed][0] == ("check-three-nodes", "check-three-nodes-2", "sequence")
    assert "'fetch-one-node' → 'fetch-one-node-2'" in renamed_words(renamed)
    assert json.loads(EXAMPLE)["name"] == "check-three-nodes"  # the original is not changed


async def test_a_new_document_hears_every_naming_conflict_at_once_with_who_holds_each() -> None:
    catalog = Catalog(MemorySequenceStore())
    await catalog.create(json.loads(EXAMPLE))
    result = await catalog.check(json.loads(EXAMPLE), as_new=True)
    found = {(p.loc, p.code) for p in result.errors}
    assert found == {(("name",), "name-taken"), (("groups", 0, "name"), "duplicate-group"),
                     (("groups", 1, "name"), "duplicate-group")}
    assert all("'check-three-nodes'" in p.message for p in result.errors)
    assert (await catalog.check(json.loads(EXAMPLE))).ok  # not as new: it replaces the saved one


async def test_a_save_as_new_is_refused_with_every_naming_conflict_and_replaces_nothing() -> None:
    from gui.core.sequences.validator import InvalidSequenceError

    catalog = Catalog(MemorySequenceStore())
    saved = (await catalog.create(json.loads(EXAMPLE)))[0]
    changed = {**json.loads(EXAMPLE), "description": "changed"}
    with pytest.raises(InvalidSequenceError) as refused:
        await catalog.create(changed, as_new=True)
    assert [(p.loc, p.code) for p in refused.value.result.errors] == [
        (("name",), "name-taken"), (("groups", 0, "name"), "duplicate-group"),
        (("groups", 1, "name"), "duplicate-group")]
    assert await catalog.get("check-three-nodes") == saved  # the saved one is untouched
    fresh = {"name": "fresh", "groups": [{"name": "g", "in": {}, "out": {},
                                          "tools": '{"tool":"echo","args":{"value":1}} ;'}]}
    assert (await catalog.create(fresh, as_new=True))[0].name == "fresh"  # a free name saves as ever


async def test_a_rename_onto_another_saved_name_is_refused_not_overwritten() -> None:
    catalog = Catalog(MemorySequenceStore())
    saved = (await catalog.create(json.loads(EXAMPLE)))[0]
    other = {"name": "other", "groups": [{"name": "g", "in": {}, "out": {},
                                          "tools": '{"tool":"echo","args":{"value":1}} ;'}]}
    await catalog.create(other)
    moved = {**other, "name": "check-three-nodes"}
    result = await catalog.check(moved, replacing="other", as_new=True)
    assert [p.code for p in result.errors] == ["name-taken"]
    with pytest.raises(DslError):
        await catalog.rename("other", moved)
    assert await catalog.get("check-three-nodes") == saved == parse_sequence(EXAMPLE).model_copy(
        update={"identity": saved.identity})


def test_a_view_as_new_makes_the_same_name_and_its_groups_conflicts() -> None:
    from gui.core.sequences.catalog_view import CatalogView
    from gui.core.sequences.validator import check_document

    doc = json.loads(EXAMPLE)
    view = CatalogView(group_owner={"fetch-one-node": "check-three-nodes"},
                       sequence_names=frozenset({"check-three-nodes"}))
    assert check_document(doc, view).ok  # an update of the saved one
    codes = [p.code for p in check_document(doc, dataclasses.replace(view, as_new=True)).errors]
    assert codes == ["name-taken", "duplicate-group"]
