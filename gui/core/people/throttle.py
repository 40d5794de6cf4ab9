"""Wrong passwords, counted per name and per address: ten in a minute slow that name and that address.

After `limit` wrong passwords within `window` s for one name (whoever tries it) or from one address
(whatever name it tries), every sign-in for that name or from that address waits `window` s: it is
answered "wait N s" without the password being checked, so a guesser learns nothing meanwhile. The
wait ends by itself: nobody is locked out for good, and the person's sessions and tokens keep working
all along. Kept in the process's memory; a team's database counts across its processes instead
(`gui.pgstore.PgSignInThrottle`, the same rule).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

MAX_WRONG = 10
WINDOW = 60.0


class SignInThrottle:
    def __init__(self, limit: int = MAX_WRONG, window: float = WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._wrong: dict[str, deque[float]] = {}
        self._slow_until: dict[str, float] = {}

    async def wait(self, *keys: str) -> float:
        """Seconds to wait before any of `keys` (a name, an address) may try again; 0: now."""
        now = self.clock()
        left = 0.0
        for key in keys:
            until = self._slow_until.get(key)
            if until is None:
                continue
            if until <= now:
                del self._slow_until[key]
            else:
                left = max(left, until - now)
        return left

    async def wrong(self, *keys: str) -> None:
        now = self.clock()
        for key in keys:
            times = self._wrong.setdefault(key, deque())
            times.append(now)
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.limit:
                self._slow_until[key] = now + self.window
                times.clear()
        if len(self._wrong) > 10_000:  # a flood of names or addresses must not grow this without bound
            self._wrong = {k: v for k, v in self._wrong.items() if v}
