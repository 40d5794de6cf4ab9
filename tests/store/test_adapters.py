"""The TinyDB stores behind the engine: durable, recoverable, one process per folder."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.waiting import wait_until

from gui.core.asks.interactions import ApprovalResponse
from gui.core.sequences.help import EXAMPLE
from gui.runtime import open_store_runtime
from gui.store.lock import DataFolderInUseError
from gui.store.open import release_lock

HERE = Path(__file__).parent
ECHO = '{"tool":"echo","args":{"value":1}} ;'


async def test_sequences_runs_and_interactions_survive_a_restart(tmp_path):
    runtime = await open_store_runtime(tmp_path)
    engine = runtime.engine
    engine.modes.set("cmd_run", "always-allow")
    await engine.create(json.loads(EXAMPLE))
    record = await engine.run("check-three-nodes", {"host": "n1"})
    assert record.status == "succeeded"
    await runtime.close()

    runtime = await open_store_runtime(tmp_path)
    engine = runtime.engine
    try:
        assert [s["name"] for s in await engine.list_sequences()] == ["check-three-nodes"]
        stored = await engine.get_run(record.run_id)
        assert stored is not None and stored.status == "succeeded" and stored.outputs == record.outputs
        autos = await engine.interaction_store.list()
        assert len(autos) == 2 and all(r.auto and r.status == "resolved" for r in autos)
        assert engine.modes.get("cmd_run") == "always-allow"
    finally:
        await runtime.close()


async def test_a_second_open_of_the_same_folder_in_another_process_is_refused(tmp_path):
    runtime = await open_store_runtime(tmp_path)
    try:
        code = ("import asyncio,sys; from gui.store.open import open_stores\n"
                "try:\n asyncio.run(open_stores(__import__('pathlib').Path(sys.argv[1])))\n"
                "except Exception as e: print(type(e).__name__, e)")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                             timeout=60).stdout
        assert out.startswith("DataFolderInUseError")
        assert str(tmp_path) in out and f"pid {os.getpid()}" in out
    finally:
        await runtime.close()


def lock_is_free(folder: Path) -> bool:
    from gui.store.lock import InstanceLock

    try:
        InstanceLock(folder).acquire().release()
    except DataFolderInUseError:
        return False
    return True


async def wait_lock_free(folder: Path, timeout: float = 15.0) -> None:
    """Wait until the killed child's lock is gone (the kernel drops it once the process and anything
    it forked have closed their files); bounded by `timeout`."""
    await wait_until(lambda: lock_is_free(folder), "the killed child's lock on the data folder to be gone",
                     timeout=timeout, every=0.05)


def _waiting(spawn: Callable[..., Any], folder: Path, answer: bool) -> tuple[Any, str, str]:
    """respond_child.py once its request waits (its lines read with a timeout): it, the request's id, the run's."""
    child = spawn(str(HERE / "respond_child.py"), str(folder), "answer" if answer else "wait")
    line = child.next_line(timeout=30).split()
    assert line and line[0] == "waiting", line
    return child, line[1], line[2]


async def test_response_is_on_disk_once_respond_returned_even_if_killed_right_after(tmp_path, spawn):
    child, iid, run_id = _waiting(spawn, tmp_path, answer=True)
    assert child.next_line(timeout=30) == "responded"
    child.kill()
    await wait_lock_free(tmp_path)
    runtime = await open_store_runtime(tmp_path)
    try:
        record = await runtime.engine.interactions.get(iid)
        assert record.status == "resolved"
        assert record.result.response == ApprovalResponse(decision="approved")
    finally:
        await runtime.close()


async def test_startup_recovery_cancels_leftovers_and_interrupts_their_runs(tmp_path, spawn):
    child, iid, run_id = _waiting(spawn, tmp_path, answer=False)
    child.kill()
    from gui.runtime import open_runtime

    await wait_lock_free(tmp_path)
    runtime = await open_runtime(tmp_path, memory=False)
    try:
        assert runtime.recovered_runs == [run_id]
        record = await runtime.engine.interactions.get(iid)
        assert (record.status, record.result.reason) == ("cancelled", "runtime_interrupted")
        run = await runtime.engine.get_run(run_id)
        assert run.status == "interrupted"
        # what it had not reached did not run, and says why (never left "waiting" or "queued" on an ended run)
        assert (run.groups[1].status, run.groups[1].cause) == ("cancelled", "app_stopped")
        assert {t.status for t in run.groups[1].tools} <= {"cancelled"}
    finally:
        await runtime.close()


async def test_a_corrupt_file_is_moved_aside_with_a_message_not_emptied(tmp_path):
    (tmp_path / "sequences.json").write_text("this is not json {", encoding="utf-8")
    runtime = await open_store_runtime(tmp_path)
    try:
        assert len(runtime.notices) == 1 and "moved aside" in runtime.notices[0]
        moved = [p for p in tmp_path.iterdir() if p.name.startswith("sequences.json.corrupt")]
        assert len(moved) == 1 and moved[0].read_text() == "this is not json {"
        assert await runtime.engine.list_sequences() == []
    finally:
        await runtime.close()


async def test_run_list_pages_across_running_and_history(tmp_path):
    runtime = await open_store_runtime(tmp_path)
    engine = runtime.engine
    try:
        tools = '{"tool":"echo","args":{"value":1}} ;'
        await engine.create({"name": "quick", "groups": [{"name": "q", "tools": tools}]})
        ids = [(await engine.run("quick", {})).run_id for _ in range(5)]
        listed = [r.run_id for r in await engine.list_runs(limit=3)]
        assert listed == ids[::-1][:3]
        assert [r.run_id for r in await engine.list_runs(limit=3, offset=3)] == ids[::-1][3:]
    finally:
        await runtime.close()


def test_lock_is_released_on_close_so_the_folder_can_be_reopened(tmp_path):
    async def twice() -> None:
        for _ in range(2):
            runtime = await open_store_runtime(tmp_path)
            await runtime.close()

    asyncio.run(twice())
    release_lock(tmp_path)
    with pytest.raises(DataFolderInUseError):
        async def clash() -> None:
            rt = await open_store_runtime(tmp_path)
            try:
                from gui.store.lock import InstanceLock

                InstanceLock(tmp_path).acquire()  # a second lock object in this process: refused
            finally:
                await rt.close()

        asyncio.run(clash())


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


async def test_documents_edited_by_hand_into_nonsense_are_left_out_and_the_app_still_opens(tmp_path, caplog):
    from gui.runtime import open_runtime

    runtime = await open_store_runtime(tmp_path)
    tools = '{"tool":"echo","args":{"value":1}} ;'
    await runtime.engine.create({"name": "good", "groups": [{"name": "g", "tools": tools}]})
    await runtime.engine.create({"name": "bad", "groups": [{"name": "b", "tools": tools}]})
    kept = await runtime.engine.run("good", {})
    await runtime.close()

    def break_sequence(data):
        [bad] = [d for d in data["sequences"].values() if d["name"] == "bad"]
        bad["tree"]["groups"][0]["on_error"] = "explode"

    _edit(tmp_path / "sequences.json", break_sequence)
    (tmp_path / "runs.json").write_text(json.dumps({"runs": {"odd": {"run_id": "odd", "status": "weird"}}}))
    (tmp_path / "interactions.json").write_text(json.dumps({"interactions": {"x": {"request": 1}}}))
    (tmp_path / "settings.json").write_text(json.dumps({"settings": {"modes": {"modes": ["cmd_run"]}}}))

    runtime = await open_runtime(tmp_path, memory=False)
    try:
        engine = runtime.engine
        assert [s["name"] for s in await engine.list_sequences()] == ["good"]
        assert await engine.get("bad") is None
        assert [r.run_id for r in await engine.list_runs()] == [kept.run_id]
        assert await engine.get_run("odd") is None
        assert await engine.interaction_store.list() == []
        assert engine.modes.get("cmd_run") == "ask"
        assert "cannot be read" in caplog.text
    finally:
        await runtime.close()


async def test_a_deleted_lock_file_is_written_again_by_the_next_store_operation(tmp_path):
    from gui.store.lock import LOCK_NAME

    runtime = await open_store_runtime(tmp_path)
    try:
        (tmp_path / LOCK_NAME).unlink()
        await runtime.engine.create({"name": "after", "groups": [{"name": "a", "tools": ECHO}]})
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    finally:
        await runtime.close()


async def test_nothing_is_written_to_a_data_folder_moved_away_under_the_app(tmp_path):
    from gui.store.lock import DataFolderLostError

    folder = tmp_path / "data"
    runtime = await open_store_runtime(folder)
    try:
        folder.rename(tmp_path / "moved")
        folder.mkdir()
        with pytest.raises(DataFolderLostError):
            await runtime.engine.create({"name": "lost", "groups": [{"name": "l", "tools": ECHO}]})
        assert list(folder.iterdir()) == []
        folder.rmdir()
        (tmp_path / "moved").rename(folder)  # put back, as the message says: saving works again
        await runtime.engine.create({"name": "back", "groups": [{"name": "b", "tools": ECHO}]})
        assert [s["name"] for s in await runtime.engine.list_sequences()] == ["back"]
    finally:
        await runtime.close()


async def test_a_large_stored_sequence_is_read_without_holding_up_the_loop_and_once(tmp_path):
    from support.loop_watch import LoopWatch

    from gui.core.sequences.model import Group, Sequence, ToolCall

    call = ToolCall(tool="echo", args={"value": "$args.host"}, as_="r")
    big = Sequence(name="older", groups=tuple(Group(name=f"older-{g}", in_={"host": "string"}, out={"r": "string"},
                                                    tools=(call,)) for g in range(20_000)))
    runtime = await open_store_runtime(tmp_path)
    await runtime.engine.sequences.save(big)  # as a SeqDesk without size limits could have saved it
    await runtime.close()

    runtime = await open_store_runtime(tmp_path)
    try:
        async with LoopWatch() as watch:
            read = await runtime.engine.get("older")
        assert read.identity  # a sequence kept before identities is given one when read
        same = read.model_copy(update={"identity": None}) == big  # no 20,000-group diff when it fails
        assert same, "the sequence read back is not the one saved"
        assert watch.longest < 0.100, f"the loop worked {watch.longest * 1000:.0f} ms reading it"
        again = await runtime.engine.get("older")
        assert again is not None and again.groups is read.groups  # kept as read: not parsed again
        await runtime.engine.rename("older", {"name": "newer", "groups": [
            {"name": "newer-0", "tools": '{"tool":"echo","args":{"value":1}} ;'}]})
        assert await runtime.engine.get("older") is None
        assert [s.name for s in await runtime.engine.sequence_trees()] == ["newer"]
    finally:
        await runtime.close()
