"""The Runs page's list: status and sequence filters, the search box, the reason column, paging."""

from __future__ import annotations

from nicegui import ui
from nicegui.testing import User
from support.ui import app_ctx

from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord


def record(n: int, status: str = "succeeded", sequence: str = "nightly build", **extra) -> RunRecord:
    return RunRecord(run_id=f"run{n:04d}", sequence=sequence, status=status,  # type: ignore[arg-type]
                     created_at=1_700_000_000 + n, finished_at=1_700_000_005 + n, **extra)


async def saved(*records: RunRecord) -> None:
    await app_ctx().engine.runs.save_many(records)


def table(user: User) -> ui.table:
    return next(iter(user.find(kind=ui.table).elements))


async def test_fifty_runs_a_page_newest_first_with_the_range_and_a_pager(user: User):
    await saved(*(record(n) for n in range(57)))
    await user.open("/runs")
    await user.should_see("1–50 of 57 runs")
    rows = table(user).rows
    assert len(rows) == 50 and rows[0]["run_id"] == "run0056"
    pager = next(iter(user.find(marker="runs-pager").elements))
    pager.set_value(2)
    await user.should_see("51–57 of 57 runs")
    assert [r["run_id"] for r in table(user).rows] == [f"run{n:04d}" for n in range(6, -1, -1)]


async def test_the_status_and_sequence_filters_and_the_search_ask_the_store(user: User):
    await saved(record(1), record(2, "failed", error="exit code 2"), record(3, sequence="Deploy to production"),
                record(4, "stopped", sequence="Deploy to production"))
    await user.open("/runs")
    await user.should_see("1–4 of 4 runs")
    next(iter(user.find(marker="runs-status").elements)).set_value("failed")
    await user.should_see("1–1 of 1 runs")
    await user.should_see("1 run matches")
    assert [r["run_id"] for r in table(user).rows] == ["run0002"]
    next(iter(user.find(marker="runs-status").elements)).set_value("all")
    next(iter(user.find(marker="runs-sequence").elements)).set_value("Deploy to production")
    await user.should_see("1–2 of 2 runs")
    next(iter(user.find(marker="runs-sequence").elements)).set_value("\x00any")
    await user.should_see("1–4 of 4 runs")
    user.find(marker="runs-search").type("NIGHTLY")
    await user.should_see("1–2 of 2 runs", retries=30)
    assert {r["run_id"] for r in table(user).rows} == {"run0001", "run0002"}
    user.find(marker="runs-search").clear().type("no such words")
    await user.should_see("No run matches these filters.", retries=30)


async def test_the_reason_column_says_why_a_run_ended_so(user: User):
    denied = ToolRecord(index=0, tool="cmd_run", tool_call_id="c", status="failed", denied=True,
                        error="Not during the freeze")
    late = ToolRecord(index=0, tool="file_read", tool_call_id="d", status="failed", timed_out=True)
    await saved(record(1), record(2, "failed", error="exit code 2"), record(3, "stopped", cause="person"),
                record(4, "failed", groups=[GroupRecord(index=0, name="ship", status="failed", tools=[denied])]),
                record(5, "failed", groups=[GroupRecord(index=0, name="read", status="failed", tools=[late])]),
                record(6, "stopped", cause="app_closed"), record(7, "stopped", cause="agent_gave_up"),
                record(8, "interrupted", cause="app_stopped"), record(9, "stopped", error="stopped by the user"))
    await user.open("/runs")
    reasons = {r["run_id"]: r["reason"] for r in table(user).rows}
    assert reasons == {"run0001": "", "run0002": "exit code 2", "run0003": "Stopped by you",
                       "run0004": "Not approved: cmd_run (Not during the freeze)",
                       "run0005": "Timed out: file_read ran out of time in read",
                       "run0006": "Stopped: the app was closed", "run0007": "Stopped: the agent stopped waiting",
                       "run0008": "Interrupted: the app stopped",
                       "run0009": "Stopped by you"}  # kept before causes were: its error told who stopped it
    words = {r["run_id"]: r["word"] for r in table(user).rows}
    assert (words["run0003"], words["run0006"], words["run0007"]) == ("Stopped by you", "Stopped", "Stopped")
    assert any(c["label"] == "What happened" for c in table(user).columns)


async def test_a_run_its_groups_time_limit_ended_reads_timed_out_and_is_still_found_under_failed(user: User):
    cut = ToolRecord(index=0, tool="sleep", tool_call_id="s", status="failed", timed_out=True,
                     error="the group's time limit (1s) ran out")
    slow = GroupRecord(index=0, name="slow-step", status="failed", timed_out=True, reason="timed out after 1s",
                       tools=[cut])
    exit2 = ToolRecord(index=0, tool="cmd_run", tool_call_id="c", status="failed", error="exit code 2")
    broke = GroupRecord(index=0, name="build", status="failed", reason="exit code 2", tools=[exit2])
    await saved(record(1, "failed", error="group 'slow-step' failed: timed out after 1s", groups=[slow]),
                record(2, "failed", error="group 'build' failed: exit code 2", groups=[broke]))
    await user.open("/runs")
    words = {r["run_id"]: (r["word"], r["icon"], r["reason"]) for r in table(user).rows}
    assert words == {"run0001": ("Timed out", "schedule", "Timed out: sleep ran out of time in slow-step"),
                     "run0002": ("Failed", "cancel", "group 'build' failed: exit code 2")}
    next(iter(user.find(marker="runs-status").elements)).set_value("failed")  # the store's status: failed
    await user.should_see("1–2 of 2 runs")
    assert [r["word"] for r in table(user).rows] == ["Failed", "Timed out"]
