"""Runs that survive the app's death, with real processes killed by SIGKILL (resume_child.py).

- Killed while group 2 of 3 waits for an approval, restarted and resumed: group 1's command ran
  exactly once, and the run succeeds.
- Killed while an approved `sleep 30; touch marker` runs: the command's whole process group is gone
  within 2 s (the parent-death signal), the marker never appears, and the record says what happened.
  Without that signal (as on systems that have none), the next start-up kills the command and says so.

The 20-times loops are `slow`; one round of each runs with the rest of the suite.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from support.waiting import wait_until_sync

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, kills with SIGKILL")

CHILD = str(Path(__file__).with_name("resume_child.py"))
REPEAT = 20
SURVIVAL_LIMIT = 2.0


def in_session(session: int) -> list[int]:
    """The live (not zombie) processes of a session: the command's wrapper made its own."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, _ppid, _pgrp, sid = text[text.rfind(")") + 2:].split()[:4]
        if int(sid) == session and state != "Z":
            found.append(int(entry))
    return found


def sleeps_in(session: int) -> list[int]:
    out = []
    for pid in in_session(session):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == b"sleep\x0030\x00":
                out.append(pid)
        except OSError:
            pass
    return out


def seconds_until(condition, timeout: float) -> float:
    """Seconds until `condition()` held (polling /proc: there is no event for a process's death)."""
    start = time.monotonic()
    wait_until_sync(condition, timeout=timeout, every=0.01)
    return time.monotonic() - start


def kill_during_approval_then_resume(spawn, folder: Path) -> tuple[int, str]:
    side = folder / "side.txt"
    child = spawn(CHILD, str(folder), str(side), "first")
    kind, run_id = child.next_line(timeout=30).split()
    assert kind == "waiting"
    child.kill()
    resumed = spawn(CHILD, str(folder), str(side), "resume", run_id)
    done, status, kept, asked = resumed.next_line(timeout=30).split()
    assert resumed.finish(timeout=30)[0] == 0
    assert (done, kept) == ("done", "one"), (status, kept)
    assert asked == "two,three"  # the approval the kill cancelled is asked again; group one's is not
    assert status == "succeeded"
    return len(side.read_text().splitlines()), status


@pytest.mark.parametrize("rounds", [pytest.param(REPEAT, marks=pytest.mark.slow, id="20-times"),
                                    pytest.param(1, id="once")])
def test_a_run_killed_while_group_2_waits_resumes_without_running_group_1_again(tmp_path, spawn, rounds):
    doubles = 0
    for n in range(rounds):
        lines, _ = kill_during_approval_then_resume(spawn, tmp_path / f"data{n}")
        doubles += lines != 1
        assert lines >= 1, "group 1's side effect is missing"
    print(f"kill during group 2 of 3, restart, resume: {rounds} rounds, {doubles} double side effects")
    assert doubles == 0


def kill_while_command_runs(spawn, folder: Path, *, armed: bool) -> tuple[str, int, Path]:
    marker = folder / "marker"
    folder.mkdir(parents=True)
    child = spawn(CHILD, str(folder), str(marker), "orphan", *([] if armed else ["unarmed"]))
    kind, run_id, pid = child.next_line(timeout=30).split()
    assert kind == "running"
    session = int(pid)
    wait_until_sync(lambda: sleeps_in(session), "the command's `sleep 30`", timeout=10, every=0.01)
    child.kill()
    return run_id, session, marker


@pytest.mark.parametrize("rounds", [pytest.param(REPEAT, marks=pytest.mark.slow, id="20-times"),
                                    pytest.param(1, id="once")])
def test_a_command_dies_with_the_app_and_its_record_says_so(tmp_path, spawn, rounds):
    worst = 0.0
    markers = []
    for n in range(rounds):
        run_id, session, marker = kill_while_command_runs(spawn, tmp_path / f"data{n}", armed=True)
        worst = max(worst, seconds_until(lambda s=session: not in_session(s), timeout=10))
        markers.append(marker)
        restart = spawn(CHILD, str(tmp_path / f"data{n}"), str(marker), "restart", run_id)
        assert restart.next_line(timeout=30) == "recorded interrupted | interrupted: the app stopped"
    print(f"kill while `sleep 30; touch marker` runs: {rounds} rounds, the slowest group gone "
          f"{worst:.3f}s after the kill")
    assert worst <= SURVIVAL_LIMIT
    assert not [m for m in markers if m.exists()]


def test_without_a_parent_death_signal_the_next_start_up_kills_the_command_and_says_so(tmp_path, spawn):
    run_id, session, marker = kill_while_command_runs(spawn, tmp_path / "data", armed=False)
    time.sleep(0.5)  # the point of this test: the command goes on after the app died
    assert sleeps_in(session), "the command should still run: nothing ended it yet"
    restart = spawn(CHILD, str(tmp_path / "data"), str(marker), "restart", run_id)
    assert restart.next_line(timeout=30) == "recorded interrupted | killed at start-up: the app had stopped"
    wait_until_sync(lambda: not in_session(session), "the command's session to end", timeout=SURVIVAL_LIMIT,
                    every=0.01)
    assert not marker.exists()
