"""The sequence store and approval mode contract, over the memory and the TinyDB store."""

from __future__ import annotations

import inspect

import pytest
from contract_support import Backend, sequence


async def test_a_saved_sequence_comes_back_equal_and_unknown_names_are_none(backend: Backend):
    seq = sequence("check-nodes", "checks three nodes")
    await backend.sequences.save(seq)
    assert await backend.sequences.get("check-nodes") == seq
    assert await backend.sequences.get("other") is None
    await backend.reopen()
    assert await backend.sequences.get("check-nodes") == seq


async def test_saving_a_name_again_replaces_it(backend: Backend):
    await backend.sequences.save(sequence("a", "first"))
    await backend.sequences.save(sequence("a", "second"))
    assert [s.description for s in await backend.sequences.list()] == ["second"]
    await backend.reopen()
    assert (await backend.sequences.get("a")).description == "second"


@pytest.mark.parametrize("name", ["plain", "Ünïcödé naïve", "日本語", "with space", "a.b/c"])
async def test_any_name_is_stored_and_found_again(backend: Backend, name):
    await backend.sequences.save(sequence(name))
    await backend.reopen()
    assert (await backend.sequences.get(name)).name == name
    assert [s.name for s in await backend.sequences.list()] == [name]


async def test_replace_swaps_the_old_name_for_the_new_one_in_one_step(backend: Backend):
    await backend.sequences.save(sequence("old", "the first"))
    await backend.sequences.save(sequence("other"))
    await backend.sequences.replace("old", sequence("new", "renamed"))
    assert sorted(s.name for s in await backend.sequences.list()) == ["new", "other"]
    await backend.reopen()
    assert await backend.sequences.get("old") is None
    assert (await backend.sequences.get("new")).description == "renamed"


async def test_delete_removes_it_once(backend: Backend):
    await backend.sequences.save(sequence("a"))
    await backend.sequences.save(sequence("b"))
    assert await backend.sequences.delete("a") is True
    assert await backend.sequences.delete("a") is False
    assert await backend.sequences.get("a") is None
    await backend.reopen()
    assert sorted(s.name for s in await backend.sequences.list()) == ["b"]


async def test_the_identity_kept_with_a_sequence_is_read_back_without_its_tree(backend: Backend):
    await backend.sequences.save(sequence("new").model_copy(update={"identity": "abc"}))
    await backend.sequences.save(sequence("earlier"))  # saved before identities were kept
    await backend.reopen()
    assert await backend.sequences.identity_of("new") == "abc"
    assert await backend.sequences.identity_of("earlier") == ""
    assert await backend.sequences.identity_of("nothing") is None
    assert (await backend.sequences.get("new")).identity == "abc"


async def test_a_tool_never_set_asks(backend: Backend):
    assert backend.modes.get("cmd_run") == "ask"
    assert backend.modes.all() == {}


async def test_always_allow_is_kept_and_ask_removes_the_entry(backend: Backend):
    await backend.modes.set("cmd_run", "always-allow")
    await backend.modes.set("file_write", "always-allow")
    await backend.modes.set("file_write", "ask")
    await backend.modes.set("never_set", "ask")
    assert backend.modes.get("cmd_run") == "always-allow" and backend.modes.get("file_write") == "ask"
    assert backend.modes.all() == {"cmd_run": "always-allow"}
    await backend.reopen()
    assert backend.modes.all() == {"cmd_run": "always-allow"}
    assert backend.modes.get("file_write") == "ask"


async def test_set_applies_at_once_and_returns_something_to_await(backend: Backend):
    saved = backend.modes.set("http_get", "always-allow")
    assert backend.modes.get("http_get") == "always-allow"  # before anyone awaits
    assert inspect.isawaitable(saved)
    assert await saved is None
    assert await backend.modes.set("http_get", "always-allow") is None  # unchanged: nothing to wait for


async def test_an_unknown_mode_is_refused_and_changes_nothing(backend: Backend):
    await backend.modes.set("cmd_run", "always-allow")
    with pytest.raises(ValueError, match="not an approval mode"):
        backend.modes.set("cmd_run", "sometimes")
    assert backend.modes.get("cmd_run") == "always-allow"
    await backend.reopen()
    assert backend.modes.get("cmd_run") == "always-allow"


async def test_approval_rules_are_kept_apart_from_modes_and_survive_a_reopen(backend: Backend):
    from gui.core.asks.rules import ApprovalRule

    prefix = ApprovalRule(rule_id="r1", tool="cmd_run", scope="prefix", prefix="git status", created_at=1)
    run = ApprovalRule(rule_id="r2", tool="file_write", scope="run", run_id="abc", created_at=2)
    await backend.modes.add_rule(prefix)
    await backend.modes.add_rule(run)
    await backend.modes.set("http_get", "always-allow")
    await backend.reopen()
    assert sorted(r.rule_id for r in backend.modes.rules()) == ["r1", "r2"]
    assert backend.modes.all() == {"http_get": "always-allow"}
    await backend.modes.remove_rule("r1")
    await backend.modes.remove_rule("nope")  # unknown: nothing changes
    await backend.reopen()
    assert [r.rule_id for r in backend.modes.rules()] == ["r2"] and backend.modes.rules()[0] == run
