"""Schedule routes: list, add, pause or go on, delete.

`POST /api/schedules` takes `{"sequence", "args", "every": "15m"}` or `{"sequence", "args", "cron":
"*/15 * * * *"}`; a mistake is 422 naming its field (`fields`), and then nothing is stored. A
schedule only starts runs: each risky step of them still asks in the inbox, unless a rule the person
made allows it, so a schedule added by a script cannot run anything that a run started by hand
could not.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from gui.api.body import json_response, read_json, type_name
from gui.api.shared import EngineFrom
from gui.core.errors import Invalid, NotFound
from gui.core.runs import Schedule, ScheduleInvalid

SCHEDULE_BODY = 'a JSON object like {"sequence": "name", "args": {}, "every": "15m"} (or "cron": "*/15 * * * *")'
PAUSE_BODY = 'a JSON object like {"paused": true}'
FIELDS = frozenset({"sequence", "args", "every", "cron"})


async def schedule_json(engine: Any, schedule: Schedule) -> dict[str, Any]:
    """The schedule as stored, with how often in words and its last run's status now."""
    body = schedule.model_dump(mode="json")
    body["when"] = schedule.when_words()
    last = next((t for t in reversed(schedule.turns) if t.run_id), None)
    record = await engine.get_run(last.run_id) if last is not None and last.run_id else None
    body["last_run"] = {"run_id": record.run_id, "status": record.status} if record is not None else None
    return body


async def list_schedules(engine: EngineFrom) -> Response:
    eng = engine()
    return json_response([await schedule_json(eng, s) for s in await eng.list_schedules()])


async def add_schedule(request: Request, engine: EngineFrom) -> Response:
    """201 with the schedule; 422 with `fields` (each field at fault and why)."""
    raw = await read_json(request, expect=SCHEDULE_BODY)
    if not isinstance(raw, dict):
        raise Invalid(f"the body must be {SCHEDULE_BODY}, not {type_name(raw)}")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        fields = {name: "is not a field of a schedule (use sequence, args, every or cron)" for name in unknown}
        raise ScheduleInvalid(fields, f"{unknown[0]}: {fields[unknown[0]]}")
    eng = engine()
    schedule = await eng.create_schedule(raw.get("sequence"), raw.get("args"), raw.get("every"), raw.get("cron"))
    return json_response(await schedule_json(eng, schedule), 201,
                         {"Location": f"/api/schedules/{schedule.schedule_id}"})


async def pause_schedule(schedule_id: str, request: Request, engine: EngineFrom) -> Response:
    """`{"paused": true}` pauses it, `{"paused": false}` lets it go on; 404 if unknown."""
    raw = await read_json(request, expect=PAUSE_BODY)
    if not isinstance(raw, dict) or set(raw) != {"paused"} or not isinstance(raw["paused"], bool):
        raise ScheduleInvalid({"paused": "must be true or false"}, f"paused: the body must be {PAUSE_BODY}")
    eng = engine()
    try:
        schedule = await eng.pause_schedule(schedule_id, raw["paused"])
    except LookupError as exc:  # the door's own words, as a KeyError would quote them
        raise NotFound(str(exc).strip("'\"")) from None
    return json_response(await schedule_json(eng, schedule))


async def delete_schedule(schedule_id: str, engine: EngineFrom) -> Response:
    if not await engine().delete_schedule(schedule_id):
        raise NotFound(f"there is no schedule {schedule_id}")
    return Response(status_code=204)
