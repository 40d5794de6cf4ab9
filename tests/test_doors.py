"""The CLI's door on a data folder held by an app that is starting or ending (it holds the lock but
has no endpoint yet, or no more): waited out, never refused."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from support.waiting import read_until, within

import gui.runtime
from gui.doors import _folder_door
from gui.store.lock import DataFolderInUseError

HOLDER = ("import sys; from pathlib import Path; from gui.store.lock import hold_lock; "
          "hold_lock(Path(sys.argv[1])); print('held', flush=True); sys.stdin.readline()")


def hold(folder: Path) -> subprocess.Popen[str]:
    """Another process holding `folder` with no endpoint (as an app does while it starts or ends);
    it lets go when its stdin is closed."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    read_until(holder.stdout, "held\n", "the other process to hold the folder")
    return holder


async def test_a_folder_held_without_an_endpoint_is_waited_out_until_it_is_let_go(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    holder = hold(folder)
    refused = asyncio.Event()
    real_open = gui.runtime.open_runtime

    async def open_runtime(*args, **kwargs):  # the real one; tells the test when the held folder refused it
        try:
            return await real_open(*args, **kwargs)
        except DataFolderInUseError:
            refused.set()
            raise

    monkeypatch.setattr(gui.runtime, "open_runtime", open_runtime)
    door = asyncio.create_task(_folder_door(folder, None, within=30.0))
    try:
        await within(refused.wait(), "the door's first try to be refused", timeout=30)
        assert not door.done(), "the door gave up on a folder whose holder was about to let go"
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    engine = await within(door, "the door to open")
    try:
        assert await engine.list_runs() == []
    finally:
        await engine.close()


async def test_a_folder_still_held_after_the_wait_is_refused_with_the_holder_named(tmp_path):
    folder = tmp_path / "data"
    holder = hold(folder)
    try:
        with pytest.raises(DataFolderInUseError, match=f"pid {holder.pid}"):
            await _folder_door(folder, None, within=0.3)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
