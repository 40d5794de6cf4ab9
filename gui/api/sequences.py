"""Sequence routes: list, check, save, rename, export, delete, and the tools they can use."""

from __future__ import annotations

import asyncio
from typing import Any, Literal
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import ValidationError

from gui.api.body import json_response, json_response_of, read_json
from gui.api.shared import EngineFrom, pydantic_detail
from gui.core.door import Saved, summary
from gui.core.errors import Invalid, NotFound
from gui.core.sequences import to_document, to_text
from gui.wire import CheckBody, SavedBody, capped


def _saved(saved: Saved) -> dict[str, Any]:
    return SavedBody(sequence=summary(saved.sequence), document=to_document(saved.sequence),
                     warnings=[p.to_json() for p in saved.warnings]).model_dump()


async def list_sequences(engine: EngineFrom) -> Response:
    return json_response(await engine().list_sequences())


async def create_sequence(request: Request, engine: EngineFrom, as_new: bool = False) -> Response:
    """Validate and save a sequence: 201 new, 200 replaced, 422 with every problem (`?as_new=true`:
    a saved sequence of its name is a conflict, not replaced)."""
    doc = await read_json(request, expect="a sequence document (a JSON object)")
    eng = engine()
    name = doc.get("name") if isinstance(doc, dict) else None
    existed = isinstance(name, str) and await eng.get(name) is not None
    saved = await eng.create(doc, as_new=as_new)
    return await json_response_of(lambda: _saved(saved), 200 if existed else 201,
                                  {"Location": f"/api/sequences/{quote(saved.sequence.name, safe='')}"})


async def check_sequence(request: Request, engine: EngineFrom) -> Response:
    """Validate without saving: 200 with `ok`, every error and warning, and the signature."""
    raw = await read_json(request, expect='{"document": {...}, "replacing": "old name", "as_new": false}')
    try:
        body = CheckBody.model_validate(raw)
    except ValidationError as exc:
        raise Invalid(f"the body must be {{\"document\": ...}}: {pydantic_detail(exc)}") from None
    return json_response(capped(await engine().check(body.document, replacing=body.replacing,
                                                     as_new=body.as_new)))


async def get_sequence(name: str, engine: EngineFrom, format: Literal["json", "text"] = "json") -> Response:
    sequence = await engine().get(name)
    if sequence is None:
        raise NotFound(f"there is no saved sequence named '{name}'")
    if format == "text":
        return PlainTextResponse(await asyncio.to_thread(to_text, sequence))
    return await json_response_of(lambda: to_document(sequence))


async def replace_sequence(name: str, request: Request, engine: EngineFrom) -> Response:
    """Save the body in place of `name` (a rename when its name differs), in one step."""
    doc = await read_json(request, expect="a sequence document (a JSON object)")
    saved = await engine().rename(name, doc)
    return await json_response_of(lambda: _saved(saved), 200,
                                  {"Location": f"/api/sequences/{quote(saved.sequence.name, safe='')}"})


async def delete_sequence(name: str, engine: EngineFrom) -> Response:
    if not await engine().delete(name):
        raise NotFound(f"there is no saved sequence named '{name}'")
    return Response(status_code=204)


async def list_tools(engine: EngineFrom) -> Response:
    """Every tool the app knows (built in, and from MCP servers) with its title, argument schema,
    result type, whether it asks first and its server's state; and every configured MCP server.
    Read-only: it runs nothing and shows no secret (a server's headers and environment stay out)."""
    return json_response((await engine().list_tools()).to_json())
