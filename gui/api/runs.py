"""Run routes: start (saved or unsaved), list with filters, get, stop, the agent stopped waiting."""

from __future__ import annotations

from fastapi import Query, Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import json_list_response, json_response, read_json, type_name
from gui.api.roles import asker_name
from gui.api.shared import EngineFrom, pydantic_detail, record_bytes, record_json
from gui.core.errors import Invalid, NotFound
from gui.core.people import DESKTOP_PERSON
from gui.core.queries import StoredText
from gui.core.runs import RunRecord, RunStatus
from gui.wire import RUN_BODY, StartRun, StopBody


async def start_run(request: Request, engine: EngineFrom) -> Response:
    """Start a sequence (or one group, by its name): 202 at once, the run goes on."""
    raw = await read_json(request, expect=RUN_BODY)
    if not isinstance(raw, dict):
        raise Invalid(f"the body must be {RUN_BODY}, not {type_name(raw)}")
    try:
        body = StartRun.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {RUN_BODY}: {pydantic_detail(exc)}") from None
    if (body.sequence is None) == (body.document is None):
        raise Invalid(f"the body must be {RUN_BODY} (give either sequence or document)")
    eng = engine()
    signed_in = asker_name(request.scope)  # "you" on the desktop: no one is recorded as having started it
    starter = None if signed_in == DESKTOP_PERSON.name else signed_in
    if body.document is not None:
        record = await eng.start_document(body.document, body.args or {}, started_by=starter)
    else:
        assert body.sequence is not None
        record = await eng.start(body.sequence, body.args or {}, started_by=starter)
    return json_response({"run_id": record.run_id, "status": record.status}, 202,
                         {"Location": f"/api/runs/{record.run_id}"})


async def list_runs(request: Request, engine: EngineFrom, limit: int = Query(100, ge=1, le=1000),
                    offset: int = Query(0, ge=0, le=10**9), status: RunStatus | None = None,
                    sequence: str | None = None, started_from: float | None = None,
                    started_to: float | None = None,
                    q: str | None = Query(None, description="text in the sequence's name")) -> Response:
    """Newest first; `X-Total-Count` says how many match. The page is written out in a worker thread
    (fifty runs are 140 KB of JSON), run by run: an answer to another client goes on meanwhile. A run
    the store vouches for is sent as the JSON text it keeps (`StoredText`: the same JSON value), unread."""
    page = await engine().run_page_texts(status=status, sequence=sequence, started_from=started_from,
                                         started_to=started_to, text=q, limit=limit, offset=offset)
    return await json_list_response(request, page.items, _run_bytes, headers={"X-Total-Count": str(page.total)})


def _run_bytes(item: RunRecord | StoredText) -> bytes:
    return item.text if isinstance(item, StoredText) else record_bytes(item)


async def get_run(run_id: str, engine: EngineFrom) -> Response:
    """The run with this id, or the one run whose id starts with it (the short id screens show);
    409 when several runs start with it."""
    record = await engine().find_run(run_id)
    if record is None:
        raise NotFound(f"there is no run {run_id}")
    return json_response(record_json(record))


async def stop_run(run_id: str, request: Request, engine: EngineFrom) -> Response:
    """200 with whether this call stopped it (false: it had already ended). A short id works too.
    An optional body `{"cause": "agent_gave_up"}` says an agent stopped waiting for it (default:
    "person"); the app's own causes (the app closing...) cannot be claimed from outside."""
    stop = await _stop_body(request)
    eng = engine()
    record = await eng.find_run(run_id)
    if record is None:
        raise NotFound(f"there is no run {run_id}")
    return json_response({"stopped": await eng.stop(record.run_id, stop.cause)})


async def agent_left(run_id: str, engine: EngineFrom) -> Response:
    """The agent that asked for the run (over MCP) stopped waiting for it, and the run goes on: 200
    with whether it was noted (false: the run had already ended). Its finished record says when."""
    eng = engine()
    record = await eng.find_run(run_id)
    if record is None:
        raise NotFound(f"there is no run {run_id}")
    return json_response({"noted": await eng.agent_stopped_waiting(record.run_id)})


_STOP_BODY = 'nothing, or {"cause": "person"}, {"cause": "agent_gave_up"} or {"cause": "agent_cancelled"}'


async def _stop_body(request: Request) -> StopBody:
    if not (await request.body()).strip():
        return StopBody()
    raw = await read_json(request, expect=_STOP_BODY)
    try:
        return StopBody.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {_STOP_BODY}: {pydantic_detail(exc)}") from None
