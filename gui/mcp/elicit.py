"""A server's `elicitation/create`, answered: its form made into the core's `ElicitationRequest`, asked,
and the `ElicitationResponse` sent back as the server's `ElicitResult`.

`ServerForms.answer` is the SDK's elicitation callback, given when the connection opens: a form goes
from the SDK straight here, is tied to the call in flight it belongs to (`gui.mcp.in_flight`) and is
asked of that call's handler (the connection's own when no call is known).

`answer_form` reads top-down: `to_request` turns the requested schema into the one model the inbox
stores, draws and checks (MCP's integers, titled choices, bounds and formats are fields of it);
`ask_handler` bounds the wait for the handler (a form nobody can answer any more, because its call
ended or its deadline passed, is answered `cancel`); `to_result` types an accept as the server asked
(an integer field gets an `int`). An accept is checked against the whole form once: when the person
answers, by the inbox (a handler that answers through it says so: `answers_checked`), else here,
before it is sent. A server never receives an accept that lacks a required field, whatever handler
produced it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from mcp_types import (
    INVALID_PARAMS,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
)

from gui.core.asks import (
    ElicitationField,
    ElicitationHandler,
    ElicitationNotHandled,
    ElicitationRequest,
    ElicitationResponse,
    ToolSource,
    typed_values,
    value_problems,
)
from gui.core.tools import ToolContext
from gui.mcp.in_flight import CURRENT_CALL, InFlight
from gui.mcp.task_call import related_task

log = logging.getLogger(__name__)

FormParams = ElicitRequestFormParams | ElicitRequestURLParams


class ServerForms:
    """The forms one server asks while its calls run, each answered for the call it belongs to."""

    def __init__(self, server: str, handler: ElicitationHandler, in_flight: InFlight) -> None:
        self.server = server
        self.handler = handler  # who answers a form no call in flight can be found for
        self.in_flight = in_flight

    async def answer(self, context: Any, params: FormParams) -> ElicitResult | ErrorData:
        """The SDK's elicitation callback (`context`: the SDK's request context, unused)."""
        calls = self.in_flight
        call = CURRENT_CALL.get() or calls.by_task.get(related_task(params) or "")
        if call is None and len(calls.calls) == 1:
            # The legacy protocol does not say which call a request belongs to: only one can be it.
            call = next(iter(calls.calls))
        handler = (call.ctx.elicitation if call is not None else None) or self.handler
        gone = call.done if call is not None else (calls.idle if calls.calls else None)
        return await answer_form(self.server, params, call.ctx if call is not None else None, handler, gone)


async def answer_form(server: str, params: FormParams, call: ToolContext | None, handler: ElicitationHandler,
                      gone: asyncio.Event | None = None) -> ElicitResult | ErrorData:
    """The reply to the server's request, asked of `handler` for the tool call `call` (None: unknown);
    `gone` is set when nobody can answer any more (the call that asked has ended)."""
    request, unshown = to_request(server, params, call)
    if unshown:
        log.warning("MCP server %s asked for fields no form here can show (%s): answering cancel",
                    server, ", ".join(unshown))
        return ElicitResult(action="cancel")
    response = await ask_handler(handler, request, gone)
    # a handler that answers through the inbox had the accept checked as the person gave it
    return to_result(request, response, checked=getattr(handler, "answers_checked", False) is True)


def to_request(server: str, params: FormParams,
               call: ToolContext | None = None) -> tuple[ElicitationRequest, list[str]]:
    """The form, tied to the call that caused it; and the required fields no form here can ask."""
    where: dict[str, Any] = {}
    if call is not None:
        where = {"turn_id": call.run_id, "source": ToolSource(tool_call_id=call.tool_call_id, tool_name=call.tool_name),
                 "expires_at": int(call.deadline * 1000) if call.deadline is not None else None,
                 # the inbox names where it comes from as for the step's approval: sequence › group › tool
                 "sequence_name": call.sequence_name, "group_name": call.group_name}
    if isinstance(params, ElicitRequestURLParams):
        return ElicitationRequest(server_name=server, message=params.message, url=params.url, **where), []
    schema = params.requested_schema or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    fields: list[ElicitationField] = []
    unshown: list[str] = []
    for name, prop in props.items():
        made = _field(str(name), prop if isinstance(prop, dict) else {}, name in required)
        if made is not None:
            fields.append(made)
        elif name in required:
            unshown.append(str(name))
    return ElicitationRequest(server_name=server, message=params.message, fields=fields, **where), unshown


def _field(name: str, prop: dict[str, Any], required: bool) -> ElicitationField | None:
    kind = prop.get("type")
    hints: list[str] = []
    choices: list[str] | None = None
    limits: dict[str, float] = {}
    if kind == "string":
        choices, labels = _choices(prop)
        if labels:
            hints.append("choices: " + ", ".join(f"{c} = {label}" for c, label in zip(choices or [], labels,
                                                                                       strict=True)))
        if prop.get("format"):
            hints.append(f"format: {prop['format']}")
        for key in ("minLength", "maxLength"):
            if isinstance(prop.get(key), int):
                limits[key] = prop[key]
        core_type = "string"
    elif kind in ("number", "integer"):
        if kind == "integer":
            hints.append("a whole number")
        for key in ("minimum", "maximum"):
            if isinstance(prop.get(key), int | float) and not isinstance(prop.get(key), bool):
                limits[key] = prop[key]
        core_type = "number"
    elif kind == "boolean":
        core_type = "boolean"
    elif kind == "array" and isinstance(prop.get("items"), dict):
        choices, labels = _choices(prop["items"])
        if choices is None:
            return None
        if labels:
            hints.append("choices: " + ", ".join(f"{c} = {label}" for c, label in zip(choices, labels, strict=True)))
        items = {k: prop[k] for k in ("minItems", "maxItems") if isinstance(prop.get(k), int)}
        default = prop.get("default")
        chosen = [v for v in default if v in choices] if isinstance(default, list) else None
        return ElicitationField(name=name, type="string", title=str(prop.get("title") or name),
                                description=str(prop.get("description") or "; ".join(hints)), required=required,
                                default=chosen, enum=choices, multiple=True, min_items=items.get("minItems"),
                                max_items=items.get("maxItems"))
    else:
        return None
    if "minimum" in limits:
        hints.append(f"at least {_num(limits['minimum'])}")
    if "maximum" in limits:
        hints.append(f"at most {_num(limits['maximum'])}")
    if "minLength" in limits:
        hints.append(f"at least {_num(limits['minLength'])} characters")
    if "maxLength" in limits:
        hints.append(f"at most {_num(limits['maxLength'])} characters")
    default = prop.get("default")
    if choices is not None and default not in choices:
        default = None
    description = str(prop.get("description") or "")
    if hints:
        joined = "; ".join(hints)
        description = f"{description} ({joined})" if description else joined[0].upper() + joined[1:]
    return ElicitationField(
        name=name, type=core_type, title=str(prop.get("title") or name), description=description, required=required,
        default=default, enum=choices, integer=kind == "integer", minimum=limits.get("minimum"),
        maximum=limits.get("maximum"),
        min_length=int(limits["minLength"]) if "minLength" in limits else None,
        max_length=int(limits["maxLength"]) if "maxLength" in limits else None,
        format=str(prop["format"]) if kind == "string" and isinstance(prop.get("format"), str) else None)


def _choices(prop: dict[str, Any]) -> tuple[list[str] | None, list[str]]:
    """Plain `enum` (with the legacy `enumNames`), or titled `oneOf` [{const, title}]."""
    enum = prop.get("enum")
    if isinstance(enum, list) and all(isinstance(v, str) for v in enum):
        names = prop.get("enumNames")
        labels = [str(n) for n in names] if isinstance(names, list) and len(names) == len(enum) else []
        return list(enum), labels
    options = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(options, list) and options and all(isinstance(o, dict) and isinstance(o.get("const"), str)
                                                     for o in options):
        consts = [o["const"] for o in options]
        titles = [str(o.get("title") or o["const"]) for o in options]
        return consts, titles if titles != consts else []
    return None, []


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


async def ask_handler(handler: ElicitationHandler, request: ElicitationRequest,
                      gone: asyncio.Event | None = None) -> ElicitationResponse:
    """The handler's answer; `cancel` when it fails, when the call that asked has ended, or at the deadline."""
    ask = asyncio.ensure_future(handler.handle_elicitation(request))
    waits: set[asyncio.Future[Any]] = {ask}
    stop = asyncio.ensure_future(gone.wait()) if gone is not None else None
    if stop is not None:
        waits.add(stop)
    timeout = max(0.0, request.expires_at / 1000 - time.time()) if request.expires_at is not None else None
    try:
        done, _ = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ask in done:
            try:
                out = ask.result()
            except ElicitationNotHandled:
                return ElicitationResponse.cancel()
            except Exception:
                log.exception("elicitation handler failed; answering cancel")
                return ElicitationResponse.cancel()
            return out if isinstance(out, ElicitationResponse) else ElicitationResponse.cancel()
        return ElicitationResponse.cancel()
    finally:
        for fut in (ask, stop):
            if fut is not None and not fut.done():
                fut.cancel()
        await asyncio.gather(*(f for f in (ask, stop) if f is not None), return_exceptions=True)


def to_result(request: ElicitationRequest, response: ElicitationResponse, *,
              checked: bool = False) -> ElicitResult | ErrorData:
    """The reply for the server; an accept that does not fit the form becomes an error, never data.
    `checked`: the accept was checked against this form already (the inbox refuses a misfit)."""
    if response.action != "accept":
        return ElicitResult(action=response.action)
    if request.url is not None:
        return ElicitResult(action="accept")
    problems = [] if checked else value_problems(request.fields, {k: v for k, v in response.values.items()
                                                                  if v is not None})
    if problems:
        return ErrorData(code=INVALID_PARAMS, message=f"the answer to {request.server_name}'s form was not sent: "
                         + "; ".join(problems))
    return ElicitResult(action="accept", content=typed_values(request.fields, response.values))
