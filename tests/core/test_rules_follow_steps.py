"""A rule covers what the person saw: the step it was made from, in the sequence it was made in. A
changed step, or a sequence deleted and made again under the same name, asks again; an unchanged
one still runs under the rule."""

from __future__ import annotations

from support.builders import group, seq, tools
from support.engine import next_pending_request
from support.waiting import within

from gui.core.asks.rules import ApprovalRule
from gui.core.door.catalog import legacy_identity
from gui.core.door.engine import Engine
from gui.core.runs.records import RunRecord
from gui.core.sequences.validator import check_document
from gui.core.tools.registry import Registry
from gui.memory import MemorySequenceStore, MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0


def benign(command: str = "true", group_name: str = "g", name: str = "benign") -> dict:
    return seq(group(group_name, tools=tools({"tool": "cmd_run", "args": {"command": command}})), name=name)


async def allow(engine: Engine, scope: str, name: str = "benign") -> ApprovalRule:
    """Run `name`, answer its request with `scope`; the rule it made."""
    asked = next_pending_request(engine)
    run = await engine.start(name, {})
    await engine.respond(await within(asked, "the run's approval request"), {"kind": "approval", "decision": "approved",
                                                            "scope": scope})
    assert (await engine.runner.wait(run.run_id, T)).status == "succeeded"
    [rule] = [r for r in await engine.approval_rules() if r.scope == scope]
    return rule


async def runs_under(engine: Engine, rule: ApprovalRule, name: str = "benign") -> RunRecord:
    record = await engine.runner.wait((await engine.start(name, {})).run_id, T)
    assert record.status == "succeeded"
    [auto] = (await engine.interaction_page(run_id=record.run_id)).items
    assert auto.auto and auto.rule_id == rule.rule_id  # nobody was asked
    return record


async def asks_again(engine: Engine, name: str = "benign") -> None:
    asked = next_pending_request(engine)
    run = await engine.start(name, {})
    iid = await within(asked, "the run's approval request")
    assert (await engine.get_interaction(iid)).status == "pending"
    await engine.stop(run.run_id)
    assert (await engine.get_run(run.run_id)).groups[0].tools[0].status != "succeeded"  # it did not run


def fresh_engine(sequences: MemorySequenceStore | None = None) -> Engine:
    return compose_engine(Registry(builtin_tools()), MemoryStores(sequences=sequences or MemorySequenceStore()))


async def test_an_unchanged_sequence_still_runs_under_its_rule_after_it_is_saved_again():
    engine = fresh_engine()
    await engine.create(benign())
    rule = await allow(engine, "sequence")
    await runs_under(engine, rule)
    await engine.create(benign())  # saved again, as it was
    await engine.rename("benign", {**benign(), "description": "now with words"})
    await runs_under(engine, rule)
    assert await engine.earlier_version_rules() == set()


async def test_a_sequence_rule_asks_again_once_the_step_changes_and_says_it_is_for_an_earlier_version():
    engine = fresh_engine()
    await engine.create(benign())
    rule = await allow(engine, "sequence")
    await engine.rename("benign", benign("echo changed"))  # what PUT /api/sequences/benign does
    await asks_again(engine)
    assert await engine.earlier_version_rules() == {rule.rule_id}
    await engine.create(benign())  # back to the step the person saw: covered again
    await runs_under(engine, rule)
    assert await engine.earlier_version_rules() == set()


async def test_a_sequence_deleted_and_made_again_under_its_name_inherits_no_rule():
    engine = fresh_engine()
    await engine.create(benign())
    rule = await allow(engine, "sequence")
    assert await engine.delete("benign")
    assert [r.rule_id for r in await engine.approval_rules()] == []  # its rules went with it
    await engine.create(benign())  # the very same steps
    await asks_again(engine)
    # even a rule that stayed (written back by hand, or a crash between the two writes) covers nothing
    await engine.modes.add_rule(rule)
    await asks_again(engine)
    assert await engine.earlier_version_rules() == {rule.rule_id}


async def test_renaming_the_group_keeps_the_rule_but_changing_the_inputs_does_not():
    engine = fresh_engine()
    await engine.create(benign())
    rule = await allow(engine, "sequence")
    await engine.create(benign(group_name="renamed"))
    await runs_under(engine, rule)
    doc = benign(group_name="renamed")
    doc["groups"][0]["in"] = {"extra": "string"}
    await engine.create(doc)
    asked = next_pending_request(engine)
    run = await engine.start("benign", {"extra": "x"})
    await within(asked, "the run's approval request")
    await engine.stop(run.run_id)


async def test_a_file_run_of_the_same_name_is_not_covered_by_the_saved_sequences_rule():
    engine = fresh_engine()
    await engine.create(benign())
    await allow(engine, "sequence")
    asked = next_pending_request(engine)
    run = await engine.start_document(benign())  # not saved: it is no saved sequence's step
    await within(asked, "the run's approval request")
    await engine.stop(run.run_id)


async def test_a_sequence_saved_before_identities_keeps_one_until_it_is_deleted():
    store = MemorySequenceStore()
    await store.save(check_document(benign(), None).raise_for_errors())  # as an earlier SeqDesk kept it: no identity
    engine = fresh_engine(store)
    assert (await engine.get("benign")).identity == legacy_identity("benign")
    rule = await allow(engine, "sequence")
    await engine.create(benign())  # saved again: it keeps the identity it was read with
    assert (await store.get("benign")).identity == legacy_identity("benign")
    await runs_under(engine, rule)
    await engine.delete("benign")
    await engine.create(benign())
    assert (await engine.get("benign")).identity != legacy_identity("benign")
    await asks_again(engine)


async def test_a_renamed_sequence_keeps_its_identity_and_a_new_one_gets_its_own():
    engine = fresh_engine()
    first = (await engine.create(benign())).sequence
    second = (await engine.create(benign(name="other", group_name="g2"))).sequence
    renamed = (await engine.rename("benign", benign(name="moved"))).sequence
    assert first.identity and renamed.identity == first.identity and second.identity not in (None, first.identity)


async def test_a_prefix_rule_asks_again_once_its_step_changes_even_when_the_command_keeps_its_words():
    engine = fresh_engine()
    await engine.create(benign("echo hi"))
    asked = next_pending_request(engine)
    run = await engine.start("benign", {})
    await engine.respond(await within(asked, "the run's approval request"), {"kind": "approval", "decision": "approved",
                                                            "scope": "prefix", "prefix": "echo hi"})
    assert (await engine.runner.wait(run.run_id, T)).status == "succeeded"
    [rule] = await engine.approval_rules()
    await runs_under(engine, rule)
    await engine.rename("benign", benign("echo hi there"))  # still starts with the words, but another step
    await asks_again(engine)
