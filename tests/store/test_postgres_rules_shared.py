"""Approval rules across two engines on one PostgreSQL database: an "always allow" given in one process
holds in the other at once, and revoking it there makes the other ask again (`PgApprovalModes.reload`)."""

from __future__ import annotations

import pytest
from support.engine import next_pending_request
from support.waiting import wait_until, within

from gui.runtime import open_runtime

pytestmark = pytest.mark.postgres
T = 30.0
TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort",
    "tools": '{"tool": "cmd_run", "args": {"command": "echo hi there"}} ;'}]}


async def test_an_always_allow_given_in_one_process_holds_in_the_other_until_revoked_there(seqdesk_database_url):
    here, there = await open_runtime(store=seqdesk_database_url), await open_runtime(store=seqdesk_database_url)
    try:
        assert here.database is not None
        await here.engine.create(TREE)
        asked = next_pending_request(there.engine)
        first = await here.engine.start("asks", {})
        await there.engine.respond(await within(asked, "the run's approval request"),
                                   {"kind": "approval", "decision": "approved", "always_allow": True})
        assert (await here.engine.runner.wait(first.run_id, T)).status == "succeeded"
        await wait_until(lambda: here.database.modes.get("cmd_run") == "always-allow", "the rule heard here")
        second = await here.engine.start("asks", {})
        assert (await here.engine.runner.wait(second.run_id, T)).status == "succeeded"
        asked_second = [r for r in await here.engine.interactions.store.list() if r.request.turn_id == second.run_id]
        assert [(r.auto, r.rule_id) for r in asked_second] == [(True, "tool:cmd_run")]  # allowed by it, nobody asked

        [rule] = [r for r in await there.engine.approval_rules() if r.tool == "cmd_run"]
        await there.engine.revoke_approval_rule(rule.rule_id)
        await wait_until(lambda: here.database.modes.get("cmd_run") == "ask", "the revoke heard here")
        asked_again = next_pending_request(here.engine)
        third = await here.engine.start("asks", {})
        iid = await within(asked_again, "the request asked again")
        await here.engine.respond(iid, {"kind": "approval", "decision": "denied"})
        assert (await here.engine.runner.wait(third.run_id, T)).status == "failed"
    finally:
        await here.close()
        await there.close()
