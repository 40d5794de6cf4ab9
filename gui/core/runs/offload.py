"""Work that grows with the size of a sequence, done in a worker thread once it is large.

The event loop answers every page and request; a step that walks thousands of groups (building a
run's records, summing up every saved sequence) would hold all of them up meanwhile. Small work
stays on the loop: the hop to a thread costs more than it saves, and a page that never waits
is built in one go.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

OFF_LOOP_GROUPS = 50  # work over more groups than this goes to a worker thread
# A run's records are made per step and per group: more than this weight (`GROUP_STEPS` a group) is made in a
# worker thread; one group of 1,000 steps is made on the loop in ~3 ms, 1,000 groups of one step took ~30.
OFF_LOOP_STEPS = 1000
GROUP_STEPS = OFF_LOOP_STEPS // OFF_LOOP_GROUPS  # a group weighs as many steps (so 50 groups of one fit on the loop)
T = TypeVar("T")


async def off_loop(groups: int, fn: Callable[..., T], *args: Any, limit: int = OFF_LOOP_GROUPS) -> T:
    """`fn(*args)`, in a worker thread when it works through more than `limit` groups (or, with
    `limit=OFF_LOOP_STEPS`, steps)."""
    return await asyncio.to_thread(fn, *args) if groups > limit else fn(*args)
