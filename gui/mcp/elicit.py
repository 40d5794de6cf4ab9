"""Between a server's `elicitation/create` and the core's `ElicitationRequest` / `ElicitationResponse`.

The core's forms know three field types (string, number, boolean) and plain string choices; MCP also
has integers, titled choices, bounds and formats. What the core cannot hold is kept in a `FormPlan`
beside the request, so the answer goes back typed as the server asked (an integer field gets an
`int`) and is checked against the whole form before it is sent: a server never receives an accept
that lacks a required field, whatever handler produced it. `ask_handler` bounds the wait for the
handler: a form nobody can answer any more (its call ended, its deadline passed) is answered `cancel`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass, field
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
    value_problems,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallInfo:
    """The tool call a request belongs to, so the inbox can show which run and step asks."""

    run_id: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    deadline: float | None = None


@dataclass(frozen=True)
class FormPlan:
    """What the core's fields do not carry: integer fields, bounds, fields we cannot show."""

    fields: list[ElicitationField]
    url: str | None = None
    integers: frozenset[str] = frozenset()
    bounds: dict[str, dict[str, float]] = field(default_factory=dict)
    unsupported: list[str] = field(default_factory=list)  # required fields no form here can ask


def to_request(server: str, params: ElicitRequestFormParams | ElicitRequestURLParams,
               call: CallInfo | None = None) -> tuple[ElicitationRequest, FormPlan]:
    call = call or CallInfo()
    where = {"run_id": call.run_id, "tool_call_id": call.tool_call_id, "tool_name": call.tool_name,
             "deadline": call.deadline}
    if isinstance(params, ElicitRequestURLParams):
        plan = FormPlan(fields=[], url=params.url)
        return ElicitationRequest(server_name=server, message=params.message, url=params.url, **where), plan
    schema = params.requested_schema or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    fields: list[ElicitationField] = []
    integers: set[str] = set()
    bounds: dict[str, dict[str, float]] = {}
    unsupported: list[str] = []
    for name, prop in props.items():
        made = _field(str(name), prop if isinstance(prop, dict) else {}, name in required)
        if made is None:
            if name in required:
                unsupported.append(str(name))
            continue
        spec, is_integer, limits = made
        fields.append(spec)
        if is_integer:
            integers.add(spec.name)
        if limits:
            bounds[spec.name] = limits
    plan = FormPlan(fields=fields, integers=frozenset(integers), bounds=bounds, unsupported=unsupported)
    return ElicitationRequest(server_name=server, message=params.message, fields=fields, **where), plan


def _field(name: str, prop: dict[str, Any], required: bool) -> tuple[ElicitationField, bool, dict[str, float]] | None:
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
        spec = ElicitationField(name=name, type="string", title=str(prop.get("title") or name),
                                description=str(prop.get("description") or "; ".join(hints)), required=required,
                                default=chosen, enum=choices, multiple=True, min_items=items.get("minItems"),
                                max_items=items.get("maxItems"))
        return spec, False, {}
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
    spec = ElicitationField(
        name=name, type=core_type, title=str(prop.get("title") or name), description=description, required=required,
        default=default, enum=choices, integer=kind == "integer", minimum=limits.get("minimum"),
        maximum=limits.get("maximum"),
        min_length=int(limits["minLength"]) if "minLength" in limits else None,
        max_length=int(limits["maxLength"]) if "maxLength" in limits else None,
        format=str(prop["format"]) if kind == "string" and isinstance(prop.get("format"), str) else None)
    return spec, kind == "integer", limits


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


def to_result(server: str, plan: FormPlan, response: ElicitationResponse) -> ElicitResult | ErrorData:
    """The reply for the server; an accept that does not fit the form becomes an error, never data."""
    if response.action != "accept":
        return ElicitResult(action=response.action)
    if plan.url is not None:
        return ElicitResult(action="accept")
    values = {k: v for k, v in response.values.items() if v is not None}
    problems = value_problems(plan.fields, values)
    typed: dict[str, Any] = {}
    if not problems:
        for spec in plan.fields:
            if spec.name not in values:
                continue
            value, problem = _typed(spec, values[spec.name], spec.name in plan.integers,
                                    plan.bounds.get(spec.name, {}))
            if problem:
                problems.append(f"field '{spec.name}': {problem}")
            typed[spec.name] = value
    if problems:
        return ErrorData(code=INVALID_PARAMS,
                         message=f"the answer to {server}'s form was not sent: " + "; ".join(problems))
    return ElicitResult(action="accept", content=typed)


def _typed(spec: ElicitationField, value: Any, integer: bool, limits: dict[str, float]) -> tuple[Any, str | None]:
    if integer:
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            return value, f"{value} is not a whole number"
    if spec.type == "number":
        if "minimum" in limits and value < limits["minimum"]:
            return value, f"{value} is less than {_num(limits['minimum'])}"
        if "maximum" in limits and value > limits["maximum"]:
            return value, f"{value} is more than {_num(limits['maximum'])}"
    if spec.type == "string":
        if "minLength" in limits and len(value) < limits["minLength"]:
            return value, f"is shorter than {_num(limits['minLength'])} characters"
        if "maxLength" in limits and len(value) > limits["maxLength"]:
            return value, f"is longer than {_num(limits['maxLength'])} characters"
    return value, None


async def ask_handler(handler: ElicitationHandler, request: ElicitationRequest,
                      gone: asyncio.Event | None = None) -> ElicitationResponse:
    """The handler's answer; `cancel` when it fails, when the call that asked has ended, or at the deadline."""
    ask = asyncio.ensure_future(handler.handle_elicitation(request))
    waits: set[asyncio.Future[Any]] = {ask}
    stop = asyncio.ensure_future(gone.wait()) if gone is not None else None
    if stop is not None:
        waits.add(stop)
    timeout = max(0.0, request.deadline - time.time()) if request.deadline is not None else None
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
