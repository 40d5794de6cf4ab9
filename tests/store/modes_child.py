"""The process test_crash kills right after an "approve and always allow" was acknowledged.

For each n from <first n> on, it asks for an approval of tool `tool_<n>`, answers it with "approve
and always allow", and prints `ack <n>` once `respond` has returned: the moment the app would send
its 200. The parent kills it (SIGKILL) right after reading an ack.

Usage: python modes_child.py <folder> <first n>
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import time
from pathlib import Path

from gui.core.asks.interactions import ApprovalResponse, ToolApprovalRequest, ToolSource
from gui.core.asks.service import InteractionService
from gui.store.open import open_stores


def say(*parts: object) -> None:
    os.write(1, (" ".join(map(str, parts)) + "\n").encode())  # one write(2) per line


async def main(folder: Path, first: int) -> None:
    stores = await open_stores(folder)
    service = InteractionService(stores.interactions, modes=stores.modes)
    say("ready")
    for n in itertools.count(first):
        request = ToolApprovalRequest(interaction_id=f"i{n}", turn_id="run", created_at=int(time.time() * 1000),
                                      source=ToolSource(tool_call_id=f"c{n}", tool_name=f"tool_{n}"),
                                      validated_input={"n": n})
        await service.request(request)
        await service.respond(f"i{n}", ApprovalResponse(decision="approved", always_allow=True))
        say("ack", n)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
