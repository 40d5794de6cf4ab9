"""A form a tool server asks for (elicitation), answered field by field at the terminal.

`seqdesk run` asks here what the app asks in its inbox: the core hands the request to whatever
`ElicitationHandler` the front end brings, and this one is the terminal's.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Callable
from typing import Any

from gui.core.asks import ElicitationField, ElicitationRequest, ElicitationResponse
from gui.core.errors import Refused

JsonValue = Any


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
