"""Child process for the kill tests: starts a run that waits for approval, answers it, then hangs.

It prints `waiting <interaction id> <run id>` once the request is stored, and `responded` once
`respond` has returned; the parent kills it (SIGKILL) at that moment.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from gui.core.asks.interactions import ApprovalResponse
from gui.runtime import open_store_runtime

DOC = {"name": "kill-me", "groups": [
    {"name": "ask", "out": {"r": "string"},
     "tools": '{"tool":"cmd_run","args":{"command":"echo one"},"as":"r"} ;'},
    {"name": "after", "tools": '{"tool":"cmd_run","args":{"command":"echo two"}} ;'},
]}


async def main(folder: Path, answer: bool) -> None:
    runtime = await open_store_runtime(folder)
    engine = runtime.engine
    await engine.create(DOC)
    waiting: asyncio.Queue[str] = asyncio.Queue()
    engine.bus.subscribe(lambda e: e.type == "tool.waiting" and waiting.put_nowait(e.data["interaction_id"]))
    run = await engine.start("kill-me", {})
    iid = await waiting.get()
    print(f"waiting {iid} {run.run_id}", flush=True)
    if answer:
        await engine.interactions.respond(iid, ApprovalResponse(decision="approved"))
        print("responded", flush=True)
    await asyncio.Event().wait()  # hang until killed


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2] == "answer"))
