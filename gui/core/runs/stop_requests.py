"""Stopping a run that another process of a team runs: the seam a shared store offers the door.

On a lone desktop a run is stopped where it runs, and nothing more is needed. When several processes
share one store, a Stop may be pressed in a process that does not run the run: it is written to the
store as a claim (one per run: of two Stops, exactly one wins), the process that holds the run hears of
it and stops it, and the record says where the Stop was pressed (`RunRecord.stopped_by`).
"""

from __future__ import annotations

from typing import Protocol

from gui.core.causes import EndCause


class RunStopRequests(Protocol):
    async def claim(self, run_id: str, cause: EndCause) -> str | None:
        """Claim the one Stop of a running run, for `cause`: where it was pressed (this process, in
        words, as the record will say) when this claim won; None when another Stop won first or the
        run has ended (or is not known)."""
        ...
