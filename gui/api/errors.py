"""The app's answers to SeqDesk's exceptions: the handlers that turn what a route lets through into
the answer the one table (`gui.wire.errors`) writes, and FastAPI's own validation errors into one
readable sentence (`Invalid`)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from gui.api.body import json_response
from gui.api.shared import pydantic_detail
from gui.core.errors import Invalid, SeqDeskError
from gui.wire import body_of


def answer(exc: SeqDeskError) -> Response:
    return json_response(body_of(exc), exc.status)


def install(app: FastAPI) -> None:
    """The handlers, once per app: SeqDesk's exceptions by the table, FastAPI's own validation
    errors as one readable sentence (`Invalid`). Only under `/api/`: the pages keep their answers."""

    async def seqdesk_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SeqDeskError)
        if not request.url.path.startswith("/api/"):
            raise exc
        return answer(exc)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        if not request.url.path.startswith("/api/"):  # NiceGUI's pages keep FastAPI's own answer
            return await request_validation_exception_handler(request, exc)
        return answer(Invalid(pydantic_detail(exc)))

    app.add_exception_handler(SeqDeskError, seqdesk_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
