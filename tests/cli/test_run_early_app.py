"""`seqdesk run` starts the app it goes through before it reads its settings (`gui.cli.early_app`), only
where the settings cannot lead elsewhere; a bad file or a bad setting still ends the command with its
sentence, and leaves no app behind."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from support.cli import seqdesk
from support.waiting import wait_until_sync

from gui.cli import build_parser
from gui.cli.early_app import start_early

ONE_TRUE = {"name": "one-true", "groups": [{"name": "only", "out": {"result": "string"},
                                             "tools": '{"tool":"cmd_run","args":{"command":"true"},"as":"result"} ;'}]}


def apps_on(data: Path) -> list[int]:
    """The pids of the apps started in the background on `data` that are still running (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"SEQDESK_DATA={data}".encode() in environ and any(v.startswith(b"SEQDESK_BACKGROUND_FOR=")
                                                                for v in environ) and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def sequence(tmp_path: Path) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps(ONE_TRUE), encoding="utf-8")
    return path


@pytest.mark.parametrize(("words", "environment"), [
    (["run", "--connect", "http://127.0.0.1:9"], {}),  # a team server: no folder here
    (["--connect", "http://127.0.0.1:9", "run"], {}),
    (["run"], {"SEQDESK_CONNECT": "http://127.0.0.1:9"}),
    (["--store", "postgresql://nobody@127.0.0.1:9/x", "run"], {}),  # a team's database
    (["run"], {"seqdesk_store": "postgresql://nobody@127.0.0.1:9/x"}),  # a name in any case is the settings' too
    (["run"], {"SEQDESK_MEMORY": "1"}),
    (["run", "--args", "{}"], {}),  # args the app's API may not carry: decided once the format is loaded
    (["run", "--resume", "0911dd99"], {}),
])
def test_no_app_is_started_early_where_the_settings_may_lead_elsewhere(sequence, data, monkeypatch, words,
                                                                      environment):
    for name in [k for k in os.environ if k.upper().startswith("SEQDESK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SEQDESK_DATA", str(data))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    target = [] if "--resume" in words else [str(sequence)]
    args = build_parser().parse_args([*words, *target])
    started = start_early(args)
    if started is not None:
        started.abandon()
    assert started is None
    assert not (data / "background.log").exists()


def test_no_app_is_started_early_for_a_file_it_cannot_read_nor_one_its_api_cannot_carry(tmp_path, data,
                                                                                       monkeypatch):
    monkeypatch.setenv("SEQDESK_DATA", str(data))
    surrogate = tmp_path / "lone.json"
    surrogate.write_text('{"name": "a\\ud800b", "groups": []}', encoding="utf-8")  # runs in this process
    for target in (tmp_path / "missing.json", tmp_path, surrogate):
        started = start_early(build_parser().parse_args(["run", str(target)]))
        if started is not None:
            started.abandon()
        assert started is None, target
    missing = start_early(build_parser().parse_args(["--data", str(tmp_path / "no-folder"), "run", "x"]))
    assert missing is None  # the door makes it, or says why it cannot, once the settings are read
    assert not (data / "background.log").exists()


def test_a_bad_setting_ends_the_run_with_its_sentence_and_leaves_no_app(sequence, data, monkeypatch):
    monkeypatch.setenv("SEQDESK_LEASE", "soon")
    done = seqdesk("run", str(sequence), "--yes", data=data)
    assert done.returncode == 2
    assert "SEQDESK_LEASE (or its flag): Input should be a valid number" in done.stderr
    assert "Traceback" not in done.stderr
    wait_until_sync(lambda: not apps_on(data), "the app started for the run to end", timeout=30)


def test_a_file_that_is_no_sequence_is_said_so_and_its_app_ends_after_the_command(tmp_path, data):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "groups": [', encoding="utf-8")
    done = seqdesk("run", str(bad), "--yes", data=data)
    assert done.returncode == 2
    assert "is not a valid sequence" in done.stderr and "Traceback" not in done.stderr
    wait_until_sync(lambda: not apps_on(data), "the app started for the run to end", timeout=60)


def test_a_run_on_a_folder_no_app_serves_goes_through_the_app_started_early(sequence, data):
    done = seqdesk("run", str(sequence), "--yes", "--json", data=data)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["status"] == "succeeded"
    assert (data / "background.log").exists()  # it went through an app started in the background
    wait_until_sync(lambda: not apps_on(data), "the app to end after the run", timeout=60)


def test_a_run_to_resume_the_folder_does_not_hold_is_refused_without_starting_an_app(data):
    from gui.store.lock import InstanceLock

    refusal = (f"seqdesk run: there is no run 0911dd99 in the data folder {data}: "
               "the Runs page of SeqDesk lists the runs there")
    done = seqdesk("run", "--resume", "0911dd99", "--yes", data=data)
    assert done.returncode == 2, done.stderr
    assert refusal in done.stderr and "Traceback" not in done.stderr
    assert not (data / "background.log").exists() and not (data / "seqdesk.endpoint.json").exists()
    assert not apps_on(data)
    with InstanceLock(data):  # another SeqDesk holds the folder (starting, ending): its files are read all the same
        held = seqdesk("run", "--resume", "0911dd99", data=data)
    assert held.returncode == 2 and refusal in held.stderr, held.stderr
    assert not (data / "background.log").exists() and not apps_on(data)


def test_an_empty_run_id_to_resume_is_refused_at_once_without_an_app(data):
    done = seqdesk("run", "--resume", " ", data=data)
    assert done.returncode == 2, done.stderr
    assert "seqdesk run: --resume needs the id of a run" in done.stderr and "Traceback" not in done.stderr
    assert not (data / "background.log").exists() and not apps_on(data)


def test_an_app_started_in_the_background_that_ends_without_serving_is_said_at_once(data, monkeypatch):
    from gui.core.errors import Unavailable
    from gui.second_launch import OTHER_APP_SECONDS, spawn_background

    monkeypatch.setenv("SEQDESK_LEASE", "soon")  # the app cannot start on such settings
    began = time.monotonic()
    with pytest.raises(Unavailable, match="SEQDESK_LEASE"):
        spawn_background(data, None).wait()
    assert time.monotonic() - began < OTHER_APP_SECONDS  # it waited for the folder itself: no other app comes
