"""Wrong tokens and wrong pairing codes, counted per client address (see `gui.api.auth`): after too
many within a minute, the next wrong ones are answered 429 for a minute."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

MAX_FAILURES = 10
FAILURE_WINDOW = 60.0


class FailureLimiter:
    """Wrong-token attempts per client: after `limit` within `window` s, its wrong tokens are answered
    429 for `window` s (a right one still passes: the gates check it first)."""

    def __init__(self, limit: int = MAX_FAILURES, window: float = FAILURE_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, deque[float]] = {}
        self._locked_until: dict[str, float] = {}

    def locked(self, client: str) -> float:
        """Seconds the client must still wait (0: it may try)."""
        until = self._locked_until.get(client)
        if until is None:
            return 0.0
        left = until - self.clock()
        if left <= 0:
            del self._locked_until[client]
            return 0.0
        return left

    def failed(self, client: str) -> None:
        """A wrong token from `client` (not counted while it is locked out: the lock is not extended)."""
        if self.locked(client):
            return
        now = self.clock()
        times = self._failures.setdefault(client, deque())
        times.append(now)
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) >= self.limit:
            self._locked_until[client] = now + self.window
            times.clear()
        if len(self._failures) > 10_000:  # a flood of addresses must not grow this without bound
            self._failures = {k: v for k, v in self._failures.items() if v}
