"""What the door asks of whatever runs sequences: the seam between `Engine` and the runner.

`Runner` runs them in this process, one asyncio task per run; another executor (a durable workflow
service) can take its place, since the engine is given its executor and asks only this. Whoever
composes the engine (`gui.runtime.compose_engine`) chooses it.
"""

from __future__ import annotations

from typing import Any, Protocol

from gui.core.causes import EndCause
from gui.core.runs.execution import Origin
from gui.core.runs.records import RunRecord
from gui.core.sequences import Group, Sequence


class Executor(Protocol):
    async def start(self, sequence: Sequence, args: dict[str, Any], *, group: Group | None = None,
                    origin: Origin | None = None) -> RunRecord:
        """Check `args`, save the new run's first record and start it; returns that record at once.
        `group`: only that group of the sequence; `origin`: a schedule, or the plan of a resume."""
        ...

    async def wait(self, run_id: str, timeout: float | None = None) -> RunRecord:
        """The run's record once it has ended (a stored run's at once); LookupError for an unknown run."""
        ...

    async def stop(self, run_id: str, cause: EndCause | None = "person", *, by: str | None = None) -> bool:
        """Stop a run this executor runs, for `cause`, once it has ended; False when it runs nothing so.
        `by`: where the Stop was pressed, when another process of a team asked (`RunRecord.stopped_by`)."""
        ...

    async def abandon(self, run_id: str) -> bool:
        """Another process of a team took the run over: stop this copy of it, writing nothing more of
        it (`Runner.abandon`); False when it does not run here."""
        ...

    async def end_left(self, record: RunRecord, why: str) -> None:
        """A run whose process is gone was taken over here to be ended (a team's lease expired): end
        what of it still goes on outside any process (a durable workflow, its steps on hosts), saying
        `why`, so nothing of it runs on with no process holding it."""
        ...

    async def stop_all(self, cause: EndCause) -> None:
        """Stop every run it runs (the app closing)."""
        ...

    def snapshot(self, run_id: str) -> RunRecord | None:
        """A running run's record as it is now (a copy); None when it does not run here."""
        ...

    def active_ids(self) -> list[str]:
        """The ids of the runs running now."""
        ...
