"""A data folder written by an earlier SeqDesk (rules without the step they were made from, sequences
without an identity) opens, keeps every rule, and no old rule silently covers a step nobody saw: a
"this sequence" rule asks again once and is shown as made for an earlier version; a prefix rule works
as it did; a new answer makes a rule that covers the step from then on, also after a restart."""

from __future__ import annotations

import json
from pathlib import Path

from support.engine import next_pending_request
from support.waiting import within

from gui.runtime import open_runtime

T = 5.0
TREE = {"name": "benign", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort", "tools": [{"tool": "cmd_run", "args": {"command": "echo hi there"},
                                                     "as": None}]}]}
EARLIER_RULES = [  # as an earlier SeqDesk kept them
    {"rule_id": "old-seq", "tool": "cmd_run", "scope": "sequence", "run_id": None, "sequence": "benign",
     "prefix": None, "created_at": 1, "from_interaction": "i1"},
    {"rule_id": "old-run", "tool": "cmd_run", "scope": "run", "run_id": "r0", "sequence": None, "prefix": None,
     "created_at": 2, "from_interaction": "i2"},
    {"rule_id": "old-prefix", "tool": "cmd_run", "scope": "prefix", "run_id": None, "sequence": None,
     "prefix": "echo hi", "created_at": 3, "from_interaction": "i3"},
]


def earlier_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sequences.json").write_text(json.dumps(
        {"sequences": {b"benign".hex(): {"name": "benign", "tree": TREE}}}))
    (folder / "settings.json").write_text(json.dumps(
        {"settings": {"modes": {"modes": {}, "rules": EARLIER_RULES}}}))
    return folder


async def test_rules_kept_by_an_earlier_seqdesk_open_and_none_covers_a_step_it_did_not_record(tmp_path):
    folder = earlier_folder(tmp_path / "data")
    runtime = await open_runtime(folder)
    engine = runtime.engine
    try:
        assert [r.rule_id for r in await engine.approval_rules()] == ["old-seq", "old-run", "old-prefix"]
        assert await engine.earlier_version_rules() == {"old-seq"}
        # the prefix rule covers its words as before: the run goes through without anyone asked
        ran = await engine.runner.wait((await engine.start("benign", {})).run_id, T)
        [auto] = (await engine.interaction_page(run_id=ran.run_id)).items
        assert ran.status == "succeeded" and auto.rule_id == "old-prefix"
        await engine.revoke_approval_rule("old-prefix")

        # without it, the old "this sequence" rule covers nothing: the step asks again, once
        asked = next_pending_request(engine)
        run = await engine.start("benign", {})
        await engine.respond(await within(asked, "the run's approval request"),
                             {"kind": "approval", "decision": "approved", "scope": "sequence"})
        assert (await engine.runner.wait(run.run_id, T)).status == "succeeded"
        new = next(r for r in await engine.approval_rules() if r.scope == "sequence" and r.rule_id != "old-seq")
        assert new.step_fingerprint and new.sequence_identity
    finally:
        await runtime.close()

    runtime = await open_runtime(folder)  # after a restart, the new rule covers the step; the old one still not
    engine = runtime.engine
    try:
        ran = await engine.runner.wait((await engine.start("benign", {})).run_id, T)
        [auto] = (await engine.interaction_page(run_id=ran.run_id)).items
        assert ran.status == "succeeded" and auto.rule_id == new.rule_id
        assert await engine.earlier_version_rules() == {"old-seq"}
    finally:
        await runtime.close()

