"""A run another process started or finished, announced on this process's bus, so its runs list, run
pages and event streams follow the whole team's runs (the steps inside a run reach them through the
event relay, `gui.pgstore.event_relay`)."""

from __future__ import annotations

from gui.core.door import Engine
from gui.core.events import RunFinished, RunStarted


async def announce_run(engine: Engine, run_id: str) -> None:
    record = await engine.runs.get(run_id)
    if record is None:
        return
    if not record.finished:
        engine.bus.publish(RunStarted, run_id, sequence=record.sequence, target=record.target, depth=record.depth,
                           groups=[g.name for g in record.groups], args=record.args)
    else:
        engine.bus.publish(RunFinished, run_id, sequence=record.sequence, status=record.status, error=record.error,
                           outputs=record.outputs, cause=record.cause)
