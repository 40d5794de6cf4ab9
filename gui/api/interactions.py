"""Interaction routes (list with filters or one person's inbox view, get, respond, answer several at once,
hand over, cancel) and approval rules (list, revoke).

Who asks is the `Person` a team server's sign-in put on the request's scope (`seqdesk.person`, as the
people gate sets it), else "you", the desktop's one person; the token they used, if any, is the label at
`seqdesk.token`.
"""

from __future__ import annotations

from typing import Any

from fastapi import Query, Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import dump_bytes, json_list_response, json_response, read_json, type_name
from gui.api.roles import asker_name, person_of, token_of
from gui.api.shared import EngineFrom, interaction_bytes, interaction_json, pydantic_detail
from gui.core.asks import (
    Answerer,
    ApprovalResponse,
    ApprovalRule,
    InboxView,
    InteractionKind,
    InteractionRecord,
    InteractionStatusFilter,
    Via,
)
from gui.core.errors import Invalid, NotFound, Unreadable
from gui.core.queries import StoredText
from gui.wire import ANSWERED_VIA, BatchBody, CancelBody, HandOverBody

_RESPONSE_BODY = 'a response like {"kind": "approval", "decision": "approved"}'


async def list_interactions(request: Request, engine: EngineFrom, status: InteractionStatusFilter | None = None,
                            run_id: str | None = None, kind: InteractionKind | None = None,
                            sequence: str | None = None, tool: str | None = None,
                            view: InboxView | None = None,
                            limit: int = Query(100, ge=1, le=1000),
                            offset: int = Query(0, ge=0, le=10**9)) -> Response:
    """Newest first; `X-Total-Count` says how many match. The page is written out in a worker thread,
    record by record, as runs are (`gui.api.runs.list_runs`): a request the store vouches for is sent
    as the JSON text it keeps, unread (the same JSON value, the id put first). With `view` (needs_you,
    waiting, started_by_you): the pending requests in that view of the asking person's inbox, oldest
    first (no other filter)."""
    if view is not None:
        others = {"status": status not in (None, "pending"), "run_id": run_id, "kind": kind, "sequence": sequence,
                  "tool": tool}
        given = [name for name, value in others.items() if value]
        if given:
            raise Invalid(f"view lists pending requests on its own: leave out {', '.join(given)}")
        found = await engine().inbox(asker_name(request.scope), view)
        window = found[offset:offset + limit]
        return await json_list_response(request, window, interaction_bytes, headers={"X-Total-Count": str(len(found))})
    page = await engine().interaction_page_texts(status=status, kind=kind, run_id=run_id, sequence=sequence,
                                                 tool_name=tool, limit=limit, offset=offset)
    return await json_list_response(request, page.items, _interaction_bytes,
                                    headers={"X-Total-Count": str(page.total)})


def _interaction_bytes(item: InteractionRecord | StoredText) -> bytes:
    """`interaction_bytes`; for a request the store vouches for, its text with the id put first (as
    `interaction_json` writes it: the id, then the record's fields, of which the id is not one)."""
    if not isinstance(item, StoredText):
        return interaction_bytes(item)
    rest = item.text[1:]
    return b'{"interaction_id":' + dump_bytes(item.id) + (rest if rest == b"}" else b"," + rest)


async def get_interaction(interaction_id: str, engine: EngineFrom) -> Response:
    record = await engine().get_interaction(interaction_id)
    if record is None:
        raise NotFound(f"there is no interaction {interaction_id}")
    return json_response(interaction_json(record))


async def respond(interaction_id: str, request: Request, engine: EngineFrom) -> Response:
    """200 with the result; 404 when there is no such request (said before anything about the
    body); 409 when it has ended; 422 when the response does not fit.

    The engine is asked at once (it knows a waiting request without reading the store, and says 404
    itself); only an answer it refuses for its body costs a look-up, to put a missing request first."""
    eng = engine()
    try:
        response = _unwrap(interaction_id, await read_json(request, expect=_RESPONSE_BODY))
        result = await eng.respond(interaction_id, response, _answerer(request))
    except (Unreadable, Invalid):
        if await eng.get_interaction(interaction_id) is None:
            raise NotFound(f"there is no interaction {interaction_id}") from None
        raise
    return json_response(result.model_dump(mode="json"))


def _answerer(request: Request) -> Answerer:
    """Who answered: through the HTTP API with the app's token, or the CLI or `seqdesk mcp` saying so.
    On a team server the person is the signed-in one, and the token the label of the personal token
    the request came with (never what the client claims): `gui.api.roles`."""
    via = request.headers.get(ANSWERED_VIA, "").strip().lower()
    way: Via = "cli" if via == "cli" else "mcp" if via == "mcp" else "api"
    person = person_of(request.scope)
    if person is None:
        return Answerer(via=way)
    token = token_of(request.scope)
    return Answerer(person=person.name, via=way if token is not None else "app", token=token)


async def respond_many(request: Request, engine: EngineFrom) -> Response:
    """Several answers at once (`{"answers": [{"interaction_id", "response"}, …]}`), each through the same
    gates as one answered alone and recorded on its own request: 200 with each one's outcome (its
    result, or its refusal's status, code and sentence), in order."""
    raw = await read_json(request, expect='{"answers": [{"interaction_id": …, "response": {…}}]}')
    try:
        body = BatchBody.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {{\"answers\": [...]}}: {pydantic_detail(exc)}") from None
    outcomes = await engine().respond_many(body.answers, _answerer(request))
    return json_response({"outcomes": [o.model_dump(mode="json") for o in outcomes]})


async def hand_over(interaction_id: str, request: Request, engine: EngineFrom) -> Response:
    """Hand a pending request to `person:NAME` or `role:NAME` with a note: 200 with the request as stored."""
    eng = engine()
    if await eng.get_interaction(interaction_id) is None:
        raise NotFound(f"there is no interaction {interaction_id}")
    raw = await read_json(request, expect='{"to": "person:NAME", "note": "…"}')
    try:
        body = HandOverBody.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {{\"to\": ..., \"note\": ...}}: {pydantic_detail(exc)}") from None
    record = await eng.hand_over(interaction_id, body.to, body.note, _answerer(request))
    return json_response(interaction_json(record))


async def cancel(interaction_id: str, request: Request, engine: EngineFrom) -> Response:
    """Cancel a pending request (its tool does not run); 200 with whether it was still pending."""
    eng = engine()
    if await eng.get_interaction(interaction_id) is None:
        raise NotFound(f"there is no interaction {interaction_id}")
    raw = await read_json(request, expect='{"reason": "no_one_to_ask"}')
    try:
        body = CancelBody.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {{\"reason\": ...}}: {pydantic_detail(exc)}") from None
    return json_response({"cancelled": await eng.cancel_interaction(interaction_id, body.reason)})


async def rules(engine: EngineFrom) -> Response:
    """Every rule that lets a tool run without asking, with its scope in words, and whether it was
    made for an earlier version of its step (then it allows nothing: the step asks again)."""
    eng = engine()
    rules, earlier = await eng.approval_rules(), await eng.earlier_version_rules()
    return json_response([rule_json(r, earlier=r.rule_id in earlier) for r in rules])


async def revoke(rule_id: str, engine: EngineFrom) -> Response:
    """Take a rule back (what it allowed asks again). Rules are made only by answering an approval."""
    try:
        await engine().revoke_approval_rule(rule_id)
    except LookupError as exc:
        raise NotFound(str(exc)) from None
    return Response(status_code=204)


def rule_json(rule: ApprovalRule, *, earlier: bool = False) -> dict[str, Any]:
    return {**rule.model_dump(mode="json"), "text": rule.text, "earlier_version": earlier}


def _unwrap(interaction_id: str, body: Any) -> dict[str, Any]:
    """The response itself, or the seed's `{"interaction_id"?, "response": {...}}` around it."""
    if not isinstance(body, dict):
        raise Invalid(f"the body must be {_RESPONSE_BODY}, not {type_name(body)}")
    if "response" in body and "kind" not in body:
        extra = sorted(set(body) - {"response", "interaction_id"})
        if extra:
            raise Invalid(f"unexpected field(s) beside 'response': {', '.join(extra)}")
        given = body.get("interaction_id", interaction_id)
        if given != interaction_id:
            raise Invalid(f"interaction_id {given!r} in the body does not match {interaction_id!r} in the URL")
        body = body["response"]
        if not isinstance(body, dict):
            raise Invalid(f"'response' must be {_RESPONSE_BODY}, not {type_name(body)}")
    if body.get("kind") == "approval":
        unknown = [name for name in body if name not in ApprovalResponse.model_fields]
        if unknown:  # `command`, `args`…: never read, so never quietly dropped either
            named = ", ".join(name[:40] for name in unknown[:5]) + (", …" if len(unknown) > 5 else "")
            raise Invalid(f"unexpected field(s) in an approval: {named}; an approval "
                                  "changes what the tool runs with only through edited_input (the tool's whole "
                                  "input, checked against it)")
    return body
