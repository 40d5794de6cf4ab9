"""The process test_crash kills: it writes forever and prints `ack ...` after each write returns.

Usage: python crash_child.py (tinydb|store) <folder> <first n>
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from tinydb import TinyDB

from gui.store.atomic import AtomicJSONStorage
from gui.store.tables import HotColdStore

SEGMENT_DOCS = 7


def ack(*parts: object) -> None:
    print("ack", *parts, flush=True)


def write_tinydb(folder: Path, first: int) -> None:
    table = TinyDB(folder / "db.json", storage=AtomicJSONStorage).table("records")
    for n in itertools.count(first):
        table.insert({"n": n, "pad": "x" * (n * 37 % 400)})
        ack(n)


def write_store(folder: Path, first: int) -> None:
    store = HotColdStore(folder, "runs", segment_docs=SEGMENT_DOCS)
    for n in itertools.count(first):
        doc_id = f"r{n:06d}"
        store.put_hot(doc_id, {"n": n, "state": "running"})
        ack("put", n)
        store.put_hot(doc_id, {"n": n, "state": "done", "pad": "x" * (n * 37 % 400)})
        ack("done", n)
        if n % 5 != 1:  # every fifth run stays hot
            store.archive(doc_id)
            ack("archive", n)
        if n % 5 == 0 and n >= first + 3:  # and one in five is deleted from history
            store.delete(f"r{n - 3:06d}")
            ack("delete", n - 3)


if __name__ == "__main__":
    mode, folder, first = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    {"tinydb": write_tinydb, "store": write_store}[mode](folder, first)
