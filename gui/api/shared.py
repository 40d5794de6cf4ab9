"""What every API route shares: what the app hands it (`ApiContext`, read through FastAPI's
dependencies), readable validation errors, and JSON shapes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, cast

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from gui.api.body import dump_bytes
from gui.api.limiter import FailureLimiter
from gui.core.asks import InteractionRecord
from gui.core.door import Engine
from gui.core.errors import Unavailable
from gui.core.runs import RunRecord

if TYPE_CHECKING:
    from gui.core.people import Accounts
    from gui.notify import Notifier
    from gui.people import OidcSignIn
    from gui.phone import PhoneAccess

EngineProvider = Callable[[], Engine]  # the open engine, or Unavailable while it is not open yet


def _not_here(what: str) -> Callable[[], Any]:
    def provider() -> Any:
        raise Unavailable(f"{what} cannot be reached in this app")

    return provider


@dataclass(frozen=True)
class ApiContext:
    """What the routes of one app are handed (`register_api` puts it on the app's state). Each
    provider gives what it names, or raises Unavailable while that is not there (not open yet)."""

    engine: EngineProvider
    limiter: FailureLimiter  # wrong tokens and wrong pairing codes, per client address
    token: str | None = None
    notifier: Callable[[], Notifier] = field(default_factory=lambda: _not_here("the notification settings"))
    phone: Callable[[], PhoneAccess] = field(default_factory=lambda: _not_here("phone access"))
    asgi_app: Callable[[], Any] = field(default_factory=lambda: _not_here("the app"))
    people: Callable[[], Accounts] | None = None  # a team server's accounts (None: the desktop, no sign-in)
    oidc: OidcSignIn | None = None  # the company's OpenID Connect sign-in, when configured


# The dependencies are coroutines: FastAPI runs a plain `def` dependency in a worker thread, two
# thread hand-overs per request for what is an attribute read.
async def api_context(request: Request) -> ApiContext:
    return _context(request)


def _context(request: Request) -> ApiContext:
    return cast(ApiContext, request.app.state.seqdesk_api)


async def _engine(request: Request) -> EngineProvider:
    return _context(request).engine


async def _open_engine(request: Request) -> Engine:
    return _context(request).engine()


Context = Annotated[ApiContext, Depends(api_context)]
EngineFrom = Annotated[EngineProvider, Depends(_engine)]  # called where the route needs the engine
OpenEngine = Annotated[Engine, Depends(_open_engine)]


def pydantic_detail(exc: ValidationError | RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        got = f" (got {error['input']!r:.60})" if "input" in error and error.get("type") != "missing" else ""
        parts.append(f"{where}: {error.get('msg', 'is not valid')}{got}")
    return "; ".join(parts) or "the request is not valid"


def record_json(record: RunRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True)


def interaction_json(record: InteractionRecord) -> dict[str, Any]:
    return {"interaction_id": record.interaction_id, **record.model_dump(mode="json")}


def record_bytes(record: RunRecord) -> bytes:
    """`record_json` as JSON, written by pydantic at once (half the time of the dict, then orjson);
    the way of `dump_bytes` for what pydantic cannot write (text with a lone surrogate)."""
    try:
        return record.model_dump_json(by_alias=True).encode()
    except PydanticSerializationError:
        return dump_bytes(record_json(record))


def interaction_bytes(record: InteractionRecord) -> bytes:
    """`interaction_json` as JSON, through the dict: a request's model serializers (fields left out
    when unused) are Python, and pydantic's own JSON of it takes longer than this way."""
    return dump_bytes(interaction_json(record))
