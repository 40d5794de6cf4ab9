"""A writer SIGKILLed at random moments never loses an acknowledged write nor leaves a broken database.

A child process (crash_child.py) writes in a loop and prints `ack ...` after each write returns. The
parent reads a random number of acks, waits a short random time, kills the child, reopens the
database and checks every write acknowledged so far, across all the kills. Set SEQDESK_CRASH_SEED
to replay a failing run.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

import pytest
from tinydb import TinyDB

from gui.store.atomic import AtomicJSONStorage
from gui.store.tables import HotColdStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CHILD = Path(__file__).with_name("crash_child.py")
SEGMENT_DOCS = 7  # as in crash_child.py
ITERATIONS = {"tinydb": 20, "store": 30}


def leftover_temp_files(folder: Path) -> int:
    return sum(1 for p in folder.rglob(".*.tmp"))


def kill_repeatedly(spawn, mode: str, folder: Path, verify) -> None:
    seed = int(os.environ.get("SEQDESK_CRASH_SEED", time.time_ns()))
    print(f"SEQDESK_CRASH_SEED={seed}")
    rng = random.Random(seed)
    acks: list[list[str]] = []
    first = 0
    interrupted = 0
    for iteration in range(ITERATIONS[mode]):
        child = spawn(str(CHILD), mode, str(folder), str(first))
        for _ in range(rng.randint(1, 25)):
            acks.append(child.next_line().split()[1:])
        # The point of the test: kill at an arbitrary moment, most likely inside a write.
        time.sleep(rng.uniform(0, 0.01))
        acks += [line.split()[1:] for line in child.kill()]
        interrupted += leftover_temp_files(folder) > 0
        try:
            verify(folder, acks)
        except AssertionError as err:
            raise AssertionError(f"iteration {iteration}, SEQDESK_CRASH_SEED={seed}: {err}") from err
        first = max(int(a[-1]) for a in acks) + 2
    print(f"{mode}: {ITERATIONS[mode]} kills, {interrupted} left a temporary file behind")


def verify_tinydb(folder: Path, acks: list[list[str]]) -> None:
    with TinyDB(folder / "db.json", storage=AtomicJSONStorage) as db:
        stored = [doc["n"] for doc in db.table("records").all()]
    assert len(stored) == len(set(stored)), "a record was stored twice"
    assert all(len(a) == 1 for a in acks), [a for a in acks if len(a) != 1]
    missing = {int(a[0]) for a in acks} - set(stored)
    assert not missing, f"acknowledged records lost: {sorted(missing)}"
    assert leftover_temp_files(folder) == 0


def verify_store(folder: Path, acks: list[list[str]]) -> None:
    last: dict[int, str] = {}
    for op, n in acks:
        last[int(n)] = op
    store = HotColdStore(folder, "runs", segment_docs=SEGMENT_DOCS)
    hot = {d.doc_id for d in store.list_hot()}
    history = [d.doc_id for d in store.iter_history()]
    assert len(history) == len(set(history)) == store.count_history()
    assert not hot & set(history)
    for n, op in last.items():
        doc_id = f"r{n:06d}"
        doc = store.get(doc_id)
        if op == "delete":
            assert doc is None, f"{doc_id} was deleted but is back"
            continue
        assert doc is not None and doc["n"] == n, f"{doc_id} ({op}) lost"
        if op == "put":
            assert doc["state"] in {"running", "done"}
        else:
            assert doc["state"] == "done", f"{doc_id}: {op} acknowledged, state is {doc['state']}"
        if op == "archive":
            assert doc_id in history and doc_id not in hot, f"{doc_id} archived but not in history"
    for segment in (folder / "history").glob("runs-*[0-9].json"):
        assert len(json.loads(segment.read_text())["runs"]) <= SEGMENT_DOCS
    store.close()
    assert leftover_temp_files(folder) == 0


def test_killed_tinydb_writer_keeps_every_acknowledged_insert(tmp_path, spawn):
    kill_repeatedly(spawn, "tinydb", tmp_path, verify_tinydb)


def test_killed_hot_cold_writer_keeps_every_acknowledged_put_archive_and_delete(tmp_path, spawn):
    kill_repeatedly(spawn, "store", tmp_path, verify_store)
