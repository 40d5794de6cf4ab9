"""The terminal's words for how a run, a group and a tool ended: a run its group's time limit ended
reads "timed out", as the run page and the runs list say, never only "failed"."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import seqdesk

from gui.cli.prompter import progress_line
from gui.cli.run import run_lines
from gui.core.events import ToolFinished
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord


def timed_out_run() -> RunRecord:
    cut = ToolRecord(index=0, tool="sleep", tool_call_id="s", status="failed", timed_out=True, started_at=1.0,
                     error="the group's time limit (1s) ran out")
    slow = GroupRecord(index=1, name="slow-step", status="failed", timed_out=True, reason="timed out after 1s",
                       started_at=1.0, tools=[cut])
    done = GroupRecord(index=0, name="fetch-list", status="succeeded", started_at=1.0,
                       tools=[ToolRecord(index=0, tool="echo", tool_call_id="e", status="succeeded", started_at=1.0)])
    return RunRecord(run_id="r1", sequence="nightly", status="failed", created_at=1.0, groups=[done, slow],
                     error="group 'slow-step' failed: timed out after 1s")


def test_show_says_a_run_its_groups_time_limit_ended_timed_out():
    assert run_lines(timed_out_run()) == [
        "run r1 · nightly · timed out: sleep ran out of time in slow-step",
        "✓ fetch-list succeeded",
        "  ✓ echo succeeded",
        "✗ slow-step timed out after 1s",
        "  ✗ sleep timed out: the group's time limit (1s) ran out"]
    other = timed_out_run().model_copy(update={"error": "group 'build' failed: exit code 2", "groups": [
        GroupRecord(index=0, name="build", status="failed", reason="exit code 2", started_at=1.0)]})
    assert run_lines(other) == ["run r1 · nightly · failed: group 'build' failed: exit code 2",
                                "✗ build failed: exit code 2"]


def test_the_progress_line_of_a_tool_the_time_limit_cut_says_timed_out():
    event = ToolFinished(run_id="r1", group=1, group_name="slow-step", tool=0, tool_name="sleep",
                         status="failed", error="the group's time limit (1s) ran out", timed_out=True)
    assert progress_line(event) == "  ✗ sleep timed out: the group's time limit (1s) ran out"


def test_run_ends_with_timed_out_when_its_groups_time_limit_ran_out(tmp_path: Path, data):
    sequence = tmp_path / "nightly.json"
    sleep = json.dumps({"tool": "sleep", "args": {"seconds": 5}}) + " ;"
    group = {"name": "slow-step", "timeout": "1s", "tools": sleep}
    sequence.write_text(json.dumps({"name": "nightly", "groups": [group]}))
    ran = seqdesk("run", str(sequence), data=data)
    assert ran.returncode == 1, ran.stderr
    assert "✗ slow-step timed out after 1s\n" in ran.stderr  # its tool's line came before the limit was known
    assert "timed out: sleep ran out of time in slow-step" in ran.stderr
    assert " failed" not in ran.stderr, ran.stderr


def test_show_says_a_group_kept_from_an_earlier_run_with_that_runs_short_id():
    kept = GroupRecord(index=0, name="fetch-list", status="succeeded", reused_from="532646149fec", tools=[
        ToolRecord(index=0, tool="echo", tool_call_id="e", status="succeeded", reused_from="532646149fec")])
    run = RunRecord(run_id="8c1706a5a7fb", sequence="nightly", status="succeeded", created_at=1.0, groups=[kept],
                    resumed_from="532646149fec", attempt=2)
    assert run_lines(run)[1:] == ["✓ fetch-list succeeded: kept from run 53264614, where it had succeeded",
                                  "  ✓ echo succeeded"]
