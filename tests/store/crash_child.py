"""The process test_crash kills: it writes forever and prints `ack ...` after each write returns.

In store and interactions mode it also prints `do <op> <n>` before each write, so that the parent
knows which writes were in flight (they may or may not have happened) when it killed the process.
In interactions mode the stores are opened as the app opens them, and eight requests are stored
and answered at once, so that their lines share the writer's syncs (group commit).

Usage: python crash_child.py (tinydb|store|interactions) <folder> <first n>
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from tinydb import TinyDB

from gui.core.asks import ApprovalResponse, InteractionRecord, ResolvedResult, ShellApprovalRequest, ToolSource
from gui.store.hotcold import HotColdStore
from gui.store.open import open_stores
from gui.store.storage import AtomicJSONStorage

SEGMENT_DOCS = 7


def say(*parts: object) -> None:
    # One write(2) per line: print() may split a line across writes, and a kill between them
    # would leave half an ack on the pipe.
    os.write(1, (" ".join(map(str, parts)) + "\n").encode())


def ack(*parts: object) -> None:
    say("ack", *parts)


def write_tinydb(folder: Path, first: int) -> None:
    table = TinyDB(folder / "db.json", storage=AtomicJSONStorage).table("records")
    for n in itertools.count(first):
        doc_id = table.insert({"n": n, "pad": "x" * 400})
        ack(n)
        # A write that shrinks the file: the case where rewriting in place leaves a torn tail.
        table.update({"pad": ""}, doc_ids=[doc_id])
        ack("shrink", n)


def write_store(folder: Path, first: int) -> None:
    store = HotColdStore(folder, "runs", segment_docs=SEGMENT_DOCS)

    def step(op: str, n: int, write: Callable[..., object], *args: object) -> None:
        say("do", op, n)
        write(*args)
        ack(op, n)

    for n in itertools.count(first):
        doc_id = f"r{n:06d}"
        step("put", n, store.put_hot, doc_id, {"n": n, "state": "running"})
        step("done", n, store.put_hot, doc_id, {"n": n, "state": "done", "pad": "x" * (n * 37 % 400)})
        if n % 5 != 1:  # every fifth run stays hot
            step("archive", n, store.archive, doc_id)
        if n % 5 == 0 and n >= first + 3:  # and one in five is deleted from history
            step("delete", n - 3, store.delete, f"r{n - 3:06d}")


def request(n: int) -> InteractionRecord:
    return InteractionRecord(request=ShellApprovalRequest(
        interaction_id=interaction_id(n), turn_id=f"run-{n}", created_at=n, title="Run a command",
        source=ToolSource(tool_call_id=f"call-{n}", tool_name="cmd_run"), command=f"echo {n}" + " x" * (n * 37 % 900),
        cwd="/", reason="the step", operation="exec"))


def interaction_id(n: int) -> str:
    return f"i{n:06d}"


def answered(record: InteractionRecord) -> InteractionRecord:
    result = ResolvedResult(interaction_id=record.interaction_id, response=ApprovalResponse(decision="approved"))
    return record.model_copy(update={"status": "resolved", "result": result, "resolved_at": 1})


async def write_interactions(folder: Path, first: int) -> None:
    stores = await open_stores(folder, segment_docs=SEGMENT_DOCS)

    async def one(n: int) -> None:
        record = request(n)
        await stores.interactions.save(record)
        ack("ask", n)
        if n % 3:  # every third stays pending
            say("do", "answer", n)
            await stores.interactions.save(answered(record))
            ack("answer", n)

    for start in itertools.count(first, 8):
        for n in range(start, start + 8):
            say("do", "ask", n)
        await asyncio.gather(*(one(n) for n in range(start, start + 8)))


if __name__ == "__main__":
    mode, folder, first = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    if mode == "interactions":
        asyncio.run(write_interactions(folder, first))
    else:
        {"tinydb": write_tinydb, "store": write_store}[mode](folder, first)
