"""A program asking the person (`gui.core.door.asks`): `POST /api/asks` puts an approval or a question
in the inbox, `GET /api/asks/{id}?wait=S` says where it is (waiting up to S seconds for its end),
`DELETE /api/asks/{id}` withdraws it. Behind every gate of the API (Host, Origin, JSON bodies, the
token); a paired phone answers requests, it never makes them.
"""

from __future__ import annotations

from fastapi import Query, Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import json_response, read_json, type_name
from gui.api.mcp_servers import computer_only
from gui.api.shared import EngineFrom, pydantic_detail
from gui.core.door import AskInvalid, AskState, ProgramAsk

ASK_BODY = ('a JSON object like {"kind": "approval", "title": "Deploy", "command": "make deploy"} or '
            '{"kind": "question", "text": "Which branch?", "choices": ["main", "dev"]}')
WAIT = Query(0.0, ge=0, le=55, description="seconds to wait for the answer before answering")


def _json(state: AskState, status: int = 200) -> Response:
    return json_response(state.model_dump(mode="json"), status,
                         {"Location": f"/api/asks/{state.ask_id}"} if status == 201 else None)


async def ask(request: Request, engine: EngineFrom, wait: float = WAIT) -> Response:
    """201 with where the request is (approved at once when a rule of the person's covers it)."""
    computer_only(request)
    raw = await read_json(request, expect=ASK_BODY)
    if not isinstance(raw, dict):
        raise AskInvalid(f"the body must be {ASK_BODY}, not {type_name(raw)}")
    try:
        body = ProgramAsk.model_validate(raw)
    except ValidationError as exc:
        raise AskInvalid(pydantic_detail(exc)) from None
    eng = engine()
    state = await eng.ask(body)
    if wait and not state.ended:
        state = await eng.ask_state(state.ask_id, wait)
    return _json(state, 201)


async def ask_state(ask_id: str, request: Request, engine: EngineFrom, wait: float = WAIT) -> Response:
    computer_only(request)
    return _json(await engine().ask_state(ask_id, wait))


async def withdraw(ask_id: str, request: Request, engine: EngineFrom) -> Response:
    """The program stopped waiting: its request is cancelled (200 with how it ended)."""
    computer_only(request)
    return _json(await engine().withdraw_ask(ask_id))
