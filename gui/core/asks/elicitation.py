"""A tool server asking, mid-call, for typed input from a person (SPEC §4, seed `elicitation.go`).

The engine must not assume a UI: it hands an `ElicitationRequest` to an `ElicitationHandler` (one
async method) and gets back `accept` with typed values, `decline` (the person refuses: the server
should give up) or `cancel` (nobody could answer: the server may fall back to defaults). Each
front end brings its own handler: the inbox (persisted, a form in the GUI), the terminal (the
CLI), fixed answers (tests); `CompositeElicitationHandler` chains them. A handler must be safe to
call concurrently and must not hang a tool forever: when in doubt it answers `cancel`, never
`decline`, so a server can still go on with its defaults.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import threading
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gui.core.asks.interactions import (
    ElicitationFieldSpec,
    ElicitationInteractionRequest,
    ElicitationInteractionResponse,
    ExecutionSource,
    ResolvedResult,
    ToolSource,
)
from gui.core.errors import Refused, Unavailable

if TYPE_CHECKING:
    from gui.core.asks.ports import InteractionPort

JsonValue = Any

# One field of the form: name, type (string/number/boolean), title, description, required, default,
# optional enum. The same model the stored interaction uses, so nothing is lost on the way.
ElicitationField = ElicitationFieldSpec


class ElicitationRequest(BaseModel):
    """What a server asks for (MCP `elicitation/create`), plus where in a run it comes from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    server_name: str
    message: str  # Markdown
    fields: list[ElicitationField] = Field(default_factory=list)
    url: str | None = None  # URL mode: the person opens it, then accepts or declines
    run_id: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    deadline: float | None = None  # epoch seconds: the latest the calling tool can wait


class ElicitationResponse(BaseModel):
    """The person's reply; only `accept` carries values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["accept", "decline", "cancel"]
    values: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _values_only_on_accept(self) -> ElicitationResponse:
        if self.action != "accept" and self.values:
            raise ValueError(f"a {self.action} carries no values")
        return self

    @classmethod
    def accept(cls, values: Mapping[str, JsonValue] | None = None) -> ElicitationResponse:
        return cls(action="accept", values=dict(values or {}))

    @classmethod
    def decline(cls) -> ElicitationResponse:
        return cls(action="decline")

    @classmethod
    def cancel(cls) -> ElicitationResponse:
        return cls(action="cancel")


class ElicitationNotHandled(Unavailable):
    """Raised by a handler that leaves the request to the next one in a composite."""


@runtime_checkable
class ElicitationHandler(Protocol):
    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse: ...


HandlerFunc = Callable[
    [ElicitationRequest], ElicitationResponse | None | Awaitable[ElicitationResponse | None]
]


class ElicitationHandlerFunc:
    """A plain function (sync or async) as a handler; returning None passes to the next handler.

    A sync function that blocks (waits for a person) should set `in_thread=True`.
    """

    def __init__(self, fn: HandlerFunc, *, in_thread: bool = False) -> None:
        self._fn = fn
        self._in_thread = in_thread

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        out = await asyncio.to_thread(self._fn, req) if self._in_thread else self._fn(req)
        if inspect.isawaitable(out):
            out = await out
        if out is None:
            raise ElicitationNotHandled(req.server_name)
        return out


class NoopElicitationHandler:
    """No UI at all: always `cancel` ("could not ask"), never `decline` ("the person refused")."""

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        return ElicitationResponse.cancel()


class CompositeElicitationHandler:
    """Asks each handler in order; the first that answers wins; if none does: `cancel`."""

    def __init__(self, *handlers: ElicitationHandler) -> None:
        self.handlers = handlers

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        for handler in self.handlers:
            try:
                out = await handler.handle_elicitation(req)
            except ElicitationNotHandled:
                continue
            if out is not None:
                return out
        return ElicitationResponse.cancel()


class FixedElicitationHandler:
    """Answers every request with the same response and keeps the requests it saw (tests)."""

    def __init__(self, response: ElicitationResponse) -> None:
        self.response = response
        self.requests: list[ElicitationRequest] = []

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        self.requests.append(req)
        return self.response


class InboxElicitationHandler:
    """Puts the request in the inbox as an elicitation interaction and waits for the person.

    The interaction expires after `timeout` seconds (and never after the request's `deadline`);
    an expired or cancelled interaction answers `cancel`. If the calling tool gives up, the
    interaction is cancelled so it does not linger in the inbox.
    """

    def __init__(
        self,
        service: InteractionPort,
        *,
        timeout: float | None = 600.0,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self._service = service
        self._timeout = timeout
        self._new_id = new_id

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        now = self._service.clock()
        source = (
            ToolSource(tool_call_id=req.tool_call_id, tool_name=req.tool_name)
            if req.tool_call_id and req.tool_name
            else ExecutionSource()
        )
        request = ElicitationInteractionRequest(
            interaction_id=self._new_id(),
            turn_id=req.run_id or "",
            source=source,
            created_at=int(now * 1000),
            expires_at=int((now + self._timeout) * 1000) if self._timeout is not None else None,
            server_name=req.server_name,
            message=req.message,
            fields=list(req.fields),
            url=req.url,
        )
        handle = await self._service.request(request, deadline=req.deadline)
        try:
            result = await handle.result()
        except asyncio.CancelledError:
            await asyncio.shield(self._service.cancel(handle.interaction_id, "turn_stopped"))
            raise
        if isinstance(result, ResolvedResult) and isinstance(result.response, ElicitationInteractionResponse):
            return ElicitationResponse(action=result.response.action, values=dict(result.response.values))
        return ElicitationResponse.cancel()


class _Stop(Refused):
    def __init__(self, response: ElicitationResponse) -> None:
        self.response = response


_MISSING = object()
_YES = {"y", "yes", "true", "1", "on"}
_NO = {"n", "no", "false", "0", "off"}


class TerminalElicitationHandler:
    """Asks at the prompt, field by field, in a worker thread so the loop keeps running.

    Empty input takes the default (or skips an optional field; a required one is asked again);
    `!decline` refuses, `!cancel` or end of input cancels. Prompts never interleave: one at a time.
    """

    DECLINE = "!decline"
    CANCEL = "!cancel"

    def __init__(
        self, input_fn: Callable[[str], str] = input, output: Callable[[str], object] = print
    ) -> None:
        self._input = input_fn
        self._output = output
        self._lock = threading.Lock()

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        return await asyncio.to_thread(self._ask, req)

    def _ask(self, req: ElicitationRequest) -> ElicitationResponse:
        with self._lock:
            try:
                return self._form(req)
            except EOFError:
                return ElicitationResponse.cancel()
            except _Stop as stop:
                return stop.response

    def _form(self, req: ElicitationRequest) -> ElicitationResponse:
        self._output(f"{req.server_name} asks: {req.message}")
        if req.url:
            self._output(f"Open this address: {req.url}")
        self._output(f"(type {self.DECLINE} to refuse, {self.CANCEL} to skip)")
        if not req.fields:
            while True:
                answer = self._read("Continue? [y/n]: ").strip().lower()
                if answer in _YES:
                    return ElicitationResponse.accept()
                if answer in _NO:
                    return ElicitationResponse.decline()
                self._output("  answer y or n")
        values: dict[str, JsonValue] = {}
        for field in req.fields:
            value = self._field(field)
            if value is not _MISSING:
                values[field.name] = value
        return ElicitationResponse.accept(values)

    def _field(self, field: ElicitationField) -> JsonValue:
        hints = [f"one of: {', '.join(field.enum)}" if field.enum else field.type]
        if field.required:
            hints.append("required")
        if field.default is not None:
            hints.append(f"default {json.dumps(field.default)}")
        if field.description:
            self._output(f"  {field.description}")
        prompt = f"{field.title or field.name} ({', '.join(hints)}): "
        while True:
            text = self._read(prompt).strip()
            if not text:
                if field.default is not None:
                    return _typed_default(field)
                if not field.required:
                    return _MISSING
                self._output("  this field is required")
                continue
            try:
                return parse_value(field, text)
            except ValueError as exc:
                self._output(f"  {exc}")

    def _read(self, prompt: str) -> str:
        text = self._input(prompt)
        command = text.strip().lower()
        if command == self.DECLINE:
            raise _Stop(ElicitationResponse.decline())
        if command == self.CANCEL:
            raise _Stop(ElicitationResponse.cancel())
        return text


def parse_value(field: ElicitationField, text: str) -> JsonValue:
    """Text typed by a person as the field's type; ValueError says what to type instead."""
    text = text.strip()
    if field.type == "number":
        try:
            number: int | float = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"'{text}' is not a number") from None
        if not _finite(number):
            raise ValueError(f"'{text}' is not a finite number")
        return number
    if field.type == "boolean":
        if text.lower() in _YES:
            return True
        if text.lower() in _NO:
            return False
        raise ValueError(f"'{text}' is not yes or no")
    if field.enum is not None and text not in field.enum:
        raise ValueError(f"'{text}' is not one of: {', '.join(field.enum)}")
    return text


def _finite(number: int | float) -> bool:
    """Whole numbers always are (and may be too large for `math.isfinite`, which converts to float)."""
    return isinstance(number, int) or math.isfinite(number)


def _typed_default(field: ElicitationField) -> JsonValue:
    # Servers sometimes send defaults as text (the seed's convention): convert them.
    if isinstance(field.default, str) and field.type != "string":
        return parse_value(field, field.default)
    return field.default
