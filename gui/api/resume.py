"""`POST /api/runs/{run_id}/resume`: the next attempt of a failed, interrupted or stopped run.

The new attempt is a new run naming the old one (`resumed_from`); it keeps what succeeded and runs
the rest, asking again for every approval it needs (see `gui.core.runs.resume`). Nothing risky runs
because of this route alone: the tools it runs again ask as they did the first time.
"""

from __future__ import annotations

from fastapi.responses import Response

from gui.api.body import json_response
from gui.api.shared import EngineFrom


async def resume_run(run_id: str, engine: EngineFrom) -> Response:
    """202 with the new run's id; 404 for an unknown run, 409 with the reason it cannot be resumed."""
    record = await engine().resume(run_id)
    return json_response({"run_id": record.run_id, "status": record.status, "resumed_from": run_id,
                          "attempt": record.attempt}, 202, {"Location": f"/api/runs/{record.run_id}"})
