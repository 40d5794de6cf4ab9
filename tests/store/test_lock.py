"""InstanceLock: a second SeqDesk on the same folder is refused by name, even after the lock file was
deleted; a dead one's lock is taken over; the lock file says only who holds it, to its owner only."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from gui.store.lock import LOCK_NAME, DataFolderInUseError, DataFolderLostError, InstanceLock, LockHolder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the tests drive fcntl locks")

HOLD = """
import sys
from gui.store.lock import InstanceLock
lock = InstanceLock(sys.argv[1]).acquire()
print("locked", flush=True)
for line in sys.stdin:  # each line: check the lock (as the store does before every write)
    lock.ensure()
    print("ensured", flush=True)
"""

TRY = """
import sys
from gui.store.lock import DataFolderInUseError, InstanceLock
try:
    InstanceLock(sys.argv[1]).acquire()
except DataFolderInUseError as err:
    print(err, flush=True)
    sys.exit(3)
print("acquired", flush=True)
"""


def test_the_lock_file_says_which_process_holds_the_folder_and_nothing_else(tmp_path):
    with InstanceLock(tmp_path) as lock:
        assert lock.held
        record = json.loads((tmp_path / LOCK_NAME).read_text())
    assert record["pid"] == os.getpid() and record["started_at"]
    assert set(record) == {"pid", "started_at"}  # no command line (it can hold a token), no host


def test_the_lock_file_is_readable_by_its_owner_only(tmp_path):
    (tmp_path / LOCK_NAME).write_text("")
    os.chmod(tmp_path / LOCK_NAME, 0o644)  # as an older version left it
    with InstanceLock(tmp_path):
        assert stat.S_IMODE(os.stat(tmp_path / LOCK_NAME).st_mode) == 0o600
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with InstanceLock(fresh):
        assert stat.S_IMODE(os.stat(fresh / LOCK_NAME).st_mode) == 0o600


def test_a_token_on_the_command_line_never_reaches_the_lock_file(tmp_path, spawn):
    child = spawn("-c", HOLD, str(tmp_path), "--token", "s3cr3t-t0ken")
    assert child.next_line() == "locked"
    content = (tmp_path / LOCK_NAME).read_bytes()
    assert b"s3cr3t-t0ken" not in content and b"--token" not in content
    assert json.loads(content)["pid"] == child.pid
    child.finish()


def test_another_process_is_refused_with_the_folder_and_our_pid(tmp_path, spawn):
    with InstanceLock(tmp_path):
        child = spawn("-c", TRY, str(tmp_path))
        code, lines, stderr = child.finish()
    assert code == 3, stderr
    message = "\n".join(lines)
    assert f"The data folder {tmp_path} is in use by another SeqDesk (pid {os.getpid()}" in message
    assert "set SEQDESK_DATA to another folder" in message


def test_we_are_refused_while_another_process_holds_the_folder(tmp_path, spawn):
    child = spawn("-c", HOLD, str(tmp_path))
    assert child.next_line() == "locked"
    with pytest.raises(DataFolderInUseError) as caught:
        InstanceLock(tmp_path).acquire()
    err = caught.value
    assert err.folder == tmp_path and err.code == "data-folder-in-use"
    assert err.holder.pid == child.pid
    assert f"pid {child.pid}, since " in str(err)
    child.finish()


def test_the_lock_of_a_killed_process_is_taken_over(tmp_path, spawn):
    child = spawn("-c", HOLD, str(tmp_path))
    assert child.next_line() == "locked"
    assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == child.pid
    child.kill()
    with InstanceLock(tmp_path):
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()


def test_a_second_lock_in_the_same_process_is_refused_until_the_first_is_released(tmp_path):
    first = InstanceLock(tmp_path).acquire()
    with pytest.raises(DataFolderInUseError):
        InstanceLock(tmp_path).acquire()
    first.release()
    first.release()
    assert (tmp_path / LOCK_NAME).read_bytes() == b""
    with InstanceLock(tmp_path):
        pass


def test_a_garbled_lock_file_is_still_reported_without_crashing(tmp_path):
    assert LockHolder.parse(b"\x00garbage") == LockHolder()
    assert "pid unknown" in LockHolder().describe()


def test_the_holder_is_described_with_its_pid_and_start_time():
    holder = LockHolder(pid=1234, started_at="2020-01-02T10:02:00")
    assert holder.describe() == "pid 1234, since 2020-01-02 10:02"
    assert LockHolder.parse(b'{"pid": 1234, "argv": ["seqdesk", "--token", "x"]}') == LockHolder(pid=1234)


def test_deleting_the_lock_file_under_a_live_holder_does_not_let_a_second_process_in(tmp_path, spawn):
    holder = spawn("-c", HOLD, str(tmp_path))
    assert holder.next_line() == "locked"
    (tmp_path / LOCK_NAME).unlink()
    second = spawn("-c", TRY, str(tmp_path))
    code, lines, stderr = second.finish()
    assert code == 3, stderr
    assert f"The data folder {tmp_path} is in use by another SeqDesk" in "\n".join(lines)
    assert holder.proc.stdin is not None
    holder.proc.stdin.write("check\n")
    holder.proc.stdin.flush()
    assert holder.next_line() == "ensured"  # the holder noticed and wrote the file again
    assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == holder.pid
    third = spawn("-c", TRY, str(tmp_path))
    code, lines, stderr = third.finish()
    assert code == 3 and f"pid {holder.pid}" in "\n".join(lines), stderr
    holder.finish()


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_a_removed_or_replaced_lock_file_is_written_again_by_its_holder(tmp_path, how):
    with InstanceLock(tmp_path) as lock:
        path = tmp_path / LOCK_NAME
        if how == "removed":
            path.unlink()
        else:
            (tmp_path / "other").write_text('{"pid": 1}')
            os.replace(tmp_path / "other", path)
        lock.ensure()
        assert json.loads(path.read_text())["pid"] == os.getpid()
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        with pytest.raises(DataFolderInUseError):
            InstanceLock(tmp_path).acquire()
    assert path.read_bytes() == b""
    with InstanceLock(tmp_path):
        pass


def test_a_data_folder_moved_away_under_its_holder_stops_it(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    with InstanceLock(folder) as lock:
        folder.rename(tmp_path / "moved")
        folder.mkdir()
        with pytest.raises(DataFolderLostError) as caught:
            lock.ensure()
        assert caught.value.code == "data-folder-lost" and str(folder) in str(caught.value)


def test_a_folder_moved_while_its_lock_is_checked_gets_no_lock_file_in_its_place(tmp_path, monkeypatch):
    """CI saw it: the folder check passed, the folder was moved and a new one made at its path, and
    the lock-file check then found no lock there and wrote one into the new folder. The lock file
    is looked up in the folder that was locked, wherever it now is."""
    import gui.store.lock as lock_module

    folder = tmp_path / "data"
    folder.mkdir()
    with InstanceLock(folder) as lock:
        checked = lock_module._same_file

        def check_then_move(fd: int, path: object) -> bool:
            same = checked(fd, path)
            if path == folder and not (tmp_path / "moved").exists():
                folder.rename(tmp_path / "moved")  # moved just after the folder check passed
                folder.mkdir()
            return same

        monkeypatch.setattr(lock_module, "_same_file", check_then_move)
        lock.ensure()
        monkeypatch.setattr(lock_module, "_same_file", checked)
        assert list(folder.iterdir()) == []
        assert json.loads((tmp_path / "moved" / LOCK_NAME).read_text())["pid"] == os.getpid()
        with pytest.raises(DataFolderLostError):
            lock.ensure()
        assert list(folder.iterdir()) == []


def test_a_lock_file_removed_from_a_moved_folder_is_written_again_only_inside_it(tmp_path, monkeypatch):
    import gui.store.lock as lock_module

    folder = tmp_path / "data"
    folder.mkdir()
    with InstanceLock(folder) as lock:
        checked = lock_module._same_file
        calls = []

        def check_then_move(fd: int, path: object) -> bool:
            same = checked(fd, path)
            if path == folder and not calls:
                calls.append(path)
                (folder / LOCK_NAME).unlink()
                folder.rename(tmp_path / "moved")
                folder.mkdir()
            return same

        monkeypatch.setattr(lock_module, "_same_file", check_then_move)
        with pytest.raises(DataFolderLostError):  # re-created in the moved folder, then the move is seen
            lock.ensure()
        assert list(folder.iterdir()) == []
        assert (tmp_path / "moved" / LOCK_NAME).exists()
