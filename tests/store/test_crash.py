"""A writer SIGKILLed at random moments never loses an acknowledged write nor leaves a broken database.

A child process (crash_child.py) writes in a loop and prints `ack ...` after each write returns. The
parent reads a random number of acks, waits a short random time, kills the child, reopens the
database and checks every write acknowledged so far, across all the kills. In the interactions
mode the child stores and answers requests eight at a time through the app's stores (their journal
lines share the writer's syncs): a kill in the middle of an append, or of a group, loses nothing
acknowledged, and a last line cut short is repaired at open with the damage notice. Set SEQDESK_CRASH_SEED
to replay a failing run. modes_child.py does the same with "approve and always allow", killed right
after the acknowledgement. Each kills its child 20 to 50 times over: all are `slow`.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

import pytest
from tinydb import TinyDB

from gui.store.hotcold import HotColdStore
from gui.store.open import open_stores
from gui.store.storage import AtomicJSONStorage

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CHILD = Path(__file__).with_name("crash_child.py")
MODES_CHILD = Path(__file__).with_name("modes_child.py")
MODE_KILLS = 50
SEGMENT_DOCS = 7  # as in crash_child.py
ITERATIONS = {"tinydb": 30, "store": 50, "interactions": 20}


def leftover_temp_files(folder: Path) -> int:
    return sum(1 for p in folder.rglob(".*.tmp"))


def kill_repeatedly(spawn, mode: str, folder: Path, verify) -> None:
    seed = int(os.environ.get("SEQDESK_CRASH_SEED", time.time_ns()))
    print(f"SEQDESK_CRASH_SEED={seed}")
    rng = random.Random(seed)
    acks: list[tuple[str, int]] = []
    in_flight: dict[int, str] = {}
    first = 0
    interrupted = 0
    started = time.monotonic()
    for iteration in range(ITERATIONS[mode]):
        child = spawn(str(CHILD), mode, str(folder), str(first))
        lines = [child.next_line() for _ in range(rng.randint(1, 25))]
        # The point of the test: kill at an arbitrary moment, most likely inside a write.
        time.sleep(rng.uniform(0, 0.01))
        lines += child.kill()
        unacked: dict[tuple[str, int], None] = {}  # `do` lines not acknowledged (several when writes overlap)
        for line in lines:
            kind, *rest = line.split()
            if kind == "ack":
                acks.append((rest[0] if len(rest) == 2 else "insert", int(rest[-1])))
                unacked.pop((rest[0], int(rest[-1])), None)
            elif kind == "do":
                unacked[(rest[0], int(rest[1]))] = None
        for op, n in unacked:
            in_flight[n] = op
        interrupted += leftover_temp_files(folder) > 0
        try:
            verify(folder, acks, in_flight)
        except AssertionError as err:
            raise AssertionError(f"iteration {iteration}, SEQDESK_CRASH_SEED={seed}: {err}") from err
        # Go on after every number used so far (the first child may be killed before its first ack).
        first = max([n for _, n in acks] + list(in_flight), default=first - 2) + 2
    print(f"{mode}: {ITERATIONS[mode]} kills in {time.monotonic() - started:.1f}s, "
          f"{interrupted} left a temporary file behind, {len(acks)} acknowledged writes checked")


def verify_tinydb(folder: Path, acks: list[tuple[str, int]], in_flight: dict[int, str]) -> None:
    with TinyDB(folder / "db.json", storage=AtomicJSONStorage) as db:
        stored = [doc["n"] for doc in db.table("records").all()]
    assert len(stored) == len(set(stored)), "a record was stored twice"
    missing = {n for _, n in acks} - set(stored)
    assert not missing, f"acknowledged records lost: {sorted(missing)}"
    assert leftover_temp_files(folder) == 0


def check_state(store: HotColdStore, hot: set[str], history: list[str], n: int, op: str) -> None:
    """Assert that run n is as its last write `op` left it."""
    doc_id = f"r{n:06d}"
    doc = store.get(doc_id)
    if op in {"delete", "absent"}:
        assert doc is None, f"{doc_id} should be absent ({op}), found {doc}"
        return
    assert doc is not None and doc["n"] == n, f"{doc_id} lost after {op}"
    if op == "put":
        assert doc["state"] == "running", f"{doc_id}: put running, found {doc['state']}"
    else:
        assert doc["state"] == "done", f"{doc_id}: {op} acknowledged, found {doc['state']}"
    in_history = doc_id in history and doc_id not in hot
    assert in_history == (op == "archive"), f"{doc_id} after {op}: hot={doc_id in hot}, history={in_history}"


def verify_store(folder: Path, acks: list[tuple[str, int]], in_flight: dict[int, str]) -> None:
    last: dict[int, str] = {n: "absent" for n in in_flight}
    for op, n in acks:
        last[n] = op
    store = HotColdStore(folder, "runs", segment_docs=SEGMENT_DOCS)
    hot = {d.doc_id for d in store.list_hot()}
    history = [d.doc_id for d in store.iter_history()]
    assert len(history) == len(set(history)) == store.count_history()
    assert not hot & set(history)
    for n, op in last.items():
        try:
            check_state(store, hot, history, n, op)
        except AssertionError:
            if n not in in_flight:
                raise
            check_state(store, hot, history, n, in_flight[n])  # the write in flight did happen
    for segment in (folder / "history").glob("runs-*[0-9].json"):
        assert len(json.loads(segment.read_text())["runs"]) <= SEGMENT_DOCS
    store.close()
    assert leftover_temp_files(folder) == 0


def verify_interactions(folder: Path, acks: list[tuple[str, int]], in_flight: dict[int, str]) -> None:
    last: dict[int, str] = {}
    for op, n in acks:
        last[n] = op
    notices: list[str] = []

    async def check() -> None:
        stores = await open_stores(folder, segment_docs=SEGMENT_DOCS, on_damage=lambda d: notices.append(d.message))
        try:
            for n, op in last.items():
                record = await stores.interactions.get(f"i{n:06d}")
                assert record is not None, f"acknowledged request {n} lost"
                if op == "answer":
                    assert record.status == "resolved", f"acknowledged answer {n} lost"
                else:
                    assert record.status == "pending" or in_flight.get(n) == "answer", f"{n}: {record.status}"
        finally:
            stores.close()

    asyncio.run(check())
    assert all("was damaged" in notice and ".journal" in notice for notice in notices), notices
    assert leftover_temp_files(folder) == 0


@pytest.mark.slow
def test_killed_tinydb_writer_keeps_every_acknowledged_insert(tmp_path, spawn):
    kill_repeatedly(spawn, "tinydb", tmp_path, verify_tinydb)


@pytest.mark.slow
def test_killed_hot_cold_writer_keeps_every_acknowledged_put_archive_and_delete(tmp_path, spawn):
    kill_repeatedly(spawn, "store", tmp_path, verify_store)


@pytest.mark.slow
def test_killed_app_stores_keep_every_acknowledged_request_and_answer_stored_together(tmp_path, spawn):
    kill_repeatedly(spawn, "interactions", tmp_path, verify_interactions)


async def lost_always_allows(folder: Path, acked: list[int]) -> list[int]:
    """The acknowledged always-allows that a reopened store does not have (modes and answers)."""
    stores = await open_stores(folder)
    try:
        lost = []
        for n in acked:
            record = await stores.interactions.get(f"i{n}")
            if stores.modes.get(f"tool_{n}") != "always-allow" or record is None or record.status != "resolved":
                lost.append(n)
        return lost
    finally:
        stores.close()


@pytest.mark.slow
def test_an_acknowledged_always_allow_survives_a_kill_right_after_it(tmp_path, spawn):
    seed = int(os.environ.get("SEQDESK_CRASH_SEED", time.time_ns()))
    print(f"SEQDESK_CRASH_SEED={seed}")
    rng = random.Random(seed)
    acked: list[int] = []
    first = 0
    for _ in range(MODE_KILLS):
        child = spawn(str(MODES_CHILD), str(tmp_path), str(first))
        assert child.next_line() == "ready"
        lines = [child.next_line() for _ in range(rng.randint(1, 3))]
        lines += child.kill()  # right after the last ack read: the app would just have sent its 200
        acked += [int(line.split()[1]) for line in lines if line.startswith("ack ")]
        first = max(acked, default=first) + 2  # past the one in flight when it was killed
    lost = asyncio.run(lost_always_allows(tmp_path, acked))
    print(f"always-allow: {MODE_KILLS} kills, {len(acked)} acknowledged, {len(lost)} lost")
    assert lost == []
