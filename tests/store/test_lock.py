"""InstanceLock: a second SeqDesk on the same folder is refused by name; a dead one's lock is taken over."""

from __future__ import annotations

import json
import os
import sys

import pytest

from gui.store.lock import LOCK_NAME, DataFolderInUseError, InstanceLock, LockHolder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the tests drive fcntl locks")

HOLD = """
import sys
from gui.store.lock import InstanceLock
InstanceLock(sys.argv[1]).acquire()
print("locked", flush=True)
sys.stdin.read()
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


def test_the_lock_file_says_which_process_holds_the_folder(tmp_path):
    with InstanceLock(tmp_path) as lock:
        assert lock.held
        record = json.loads((tmp_path / LOCK_NAME).read_text())
    assert record["pid"] == os.getpid()
    assert record["argv"] == sys.argv
    assert record["hostname"] and record["started_at"]


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
    assert f"pid {child.pid}, `-c {tmp_path}`, since " in str(err)
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


def test_the_holder_is_described_with_its_command_and_start_time():
    holder = LockHolder(pid=1234, started_at="2020-01-02T10:02:00", argv=("/venv/bin/seqdesk", "--browser"))
    assert holder.describe() == "pid 1234, `seqdesk --browser`, since 2020-01-02 10:02"
