"""The words a tool's end reads with: a person's choice in words of its own, never doubled words."""

from __future__ import annotations

import pytest

from gui.core.asks.service import DENIED_REASON, EXPIRED_REASON, cancelled_reason
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord
from gui.ui.components.run.status import LOOKS, group_state, run_state, tool_state
from gui.ui.components.run.summary import tool_summary
from gui.wording.outcomes import group_note, outcome_words


def tool(status: str, **fields) -> ToolRecord:
    return ToolRecord(index=0, tool="cmd_run", tool_call_id="c", status=status, **fields)


@pytest.mark.parametrize(("record", "state", "words"), [
    (tool("failed", error=f"{DENIED_REASON}: Not during the freeze", denied=True), "denied",
     "Denied by you: Not during the freeze"),
    (tool("failed", error=DENIED_REASON, denied=True), "denied", "Denied by you"),
    (tool("failed", error=EXPIRED_REASON, denied=True), "expired", "Expired: nobody answered in time"),
    (tool("failed", error=cancelled_reason("turn_stopped", "person"), denied=True, cause="person", started_at=1.0),
     "stopped_by_you", "Stopped by you"),
    (tool("cancelled", error="cancelled", cause="person", started_at=1.0), "stopped_by_you", "Stopped by you"),
    (tool("cancelled", error="cancelled", cause="app_closed", started_at=1.0), "stopped",
     "Stopped: the app was closed"),
    (tool("failed", error=cancelled_reason("session_disposed", "app_closed"), denied=True, cause="app_closed",
          started_at=1.0), "stopped", "Stopped: the app was closed"),
    (tool("cancelled", error="cancelled", cause="agent_gave_up", started_at=1.0), "stopped",
     "Stopped: the agent stopped waiting"),
    (tool("cancelled", error="interrupted: the app stopped", cause="app_stopped", started_at=1.0), "interrupted",
     "Interrupted: the app stopped"),
    (tool("cancelled", reason="not run: the run was stopped", cause="app_closed"), "not_run",
     "Not run: the app was closed"),
    (tool("cancelled", reason="not run: the run was stopped", cause="person"), "not_run",
     "Not run: you stopped the run"),
    (tool("failed", error=cancelled_reason("no_one_to_ask", "no_one_to_ask"), denied=True, cause="no_one_to_ask",
          started_at=1.0), "cancelled", "Cancelled: there was no one to ask"),
    # a record that does not say what stopped it never blames the person, and never doubles a word
    (tool("cancelled", error="the run was stopped"), "cancelled", "Cancelled: the run was stopped"),
    (tool("cancelled", error="cancelled"), "cancelled", "Cancelled"),
    (tool("cancelled", reason="not run: an earlier group failed"), "not_run", "Not run: an earlier group failed"),
    (tool("cancelled", error="cancelled: another tool of the group failed"), "cancelled",
     "Cancelled: another tool of the group failed"),
    (tool("failed", error="boom"), "failed", "boom"),
])
def test_each_end_has_its_own_state_icon_and_words(record, state, words):
    assert tool_state(record) == state
    assert outcome_words(record) == words
    assert state in LOOKS and (state == "failed") == (LOOKS[state].word == "Failed")


def test_a_request_nobody_answered_in_time_has_one_word_in_the_run_as_in_the_inbox():
    from gui.core.causes import CAUSES
    from gui.ui.components.settings.decisions import DECISION_WORDS
    from gui.ui.pages.inbox import STATUS_FILTERS

    inbox = {STATUS_FILTERS["expired"], DECISION_WORDS["expired"]}
    assert inbox == {"Expired"}
    assert LOOKS["expired"].word == "Expired"  # the tool card, beside its request's "Expired" chip
    assert CAUSES["expired"].ended == "Expired: nobody answered in time"
    assert LOOKS["timed_out"].word == "Timed out"  # a group's time limit is another thing, with its own word


def test_a_group_not_run_says_why_once_and_a_queued_group_is_not_started_yet():
    not_run = GroupRecord(index=1, name="g", status="cancelled", reason="not run: an earlier group failed")
    assert group_note(not_run) == "Not run: an earlier group failed"
    assert LOOKS[group_state(not_run)].word == "Not run"
    queued = GroupRecord(index=1, name="g", status="waiting")
    assert LOOKS[group_state(queued)].word == "Not started yet"


def test_summaries_say_what_a_tool_does_in_plain_words():
    shell = {"command": "uptime", "cwd": "/srv", "timeout": None}
    assert tool_summary("cmd_run", shell) == "Run: uptime · in Folder /srv"
    assert tool_summary("file_read", {"path": "/etc/hosts"}) == "Read: /etc/hosts"
    assert tool_summary("http_get", {"url": "https://x.org"}) == "Fetch: https://x.org"
    assert tool_summary("server.tool", {"cwd": None, "flag": True}) == "Flag: yes"
    assert tool_summary("cmd_run", None) == ""
    assert tool_summary("http_get", {"url": "https://$args.host/x"}) == "Fetch: https://⤷ host/x"


def test_a_skipped_group_says_its_condition_in_words_never_args():
    from gui.wording.outcomes import condition_words

    reason = "its condition `$args.n > 3 and $args.s != \"\"` is false"
    skipped = GroupRecord(index=0, name="g", status="skipped", reason=reason)
    assert group_note(skipped) == ("Skipped: it runs only if all of these hold: n is more than 3 and s is not empty, "
                                   "and that was not so")
    assert condition_words("not ($args.a == 1)") == "not (a == 1)"


def test_a_run_its_groups_time_limit_ended_is_timed_out_in_its_header_as_in_its_group_row():
    cut = tool("failed", timed_out=True, error="the group's time limit (1s) ran out", started_at=1.0)
    slow = GroupRecord(index=0, name="slow-step", status="failed", timed_out=True, reason="timed out after 1s",
                       tools=[cut])
    run = RunRecord(run_id="r1", sequence="nightly", status="failed", created_at=1.0, groups=[slow],
                    error="group 'slow-step' failed: timed out after 1s")
    assert run_state(run) == group_state(slow) == tool_state(cut) == "timed_out"
    assert LOOKS[run_state(run)].word == "Timed out"
    broke = GroupRecord(index=0, name="build", status="failed", reason="boom", tools=[tool("failed", error="boom")])
    assert run_state(run.model_copy(update={"groups": [broke]})) == "failed"
