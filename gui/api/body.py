"""Reading request bodies and writing JSON for the HTTP API, so that bad input never becomes a 500.

Request bodies are bounded before anything parses them (`BodyLimitMiddleware`: the declared
`Content-Length` and the bytes actually streamed), then decoded by `read_json`, which refuses what
Python's `json` would accept but the rest of the app cannot carry: `NaN`/`Infinity` and numbers too
large for a float (not JSON; the response encoder would fail on them later), lone surrogates (not
encodable as UTF-8, so neither storable nor sendable), and nesting deep enough to exhaust the
recursion limit in deep copies.
`json_response` writes every API answer and survives whatever a tool put in a record.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import orjson
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gui.core.errors import SeqDeskError, TooLarge, Unreadable
from gui.core.sequences import MAX_DOCUMENT_BYTES, NUMBER_HOOKS, json_type_name, megabytes

MAX_BODY_BYTES = MAX_DOCUMENT_BYTES  # a body is at most one sequence's worth (gui.core.sequences.limits)
MAX_DEPTH = 64
BODY_SECONDS = 30.0
LIMITED_PREFIXES = ("/api/", "/login")
T = TypeVar("T")
# The app's gzip (`gui.api.plain_middleware`): its fastest level, for a body of at least 500 bytes.
GZIP_LEVEL = 1
GZIP_AT_LEAST = 500
HOLD_GIL = 0.0005  # seconds a page being written holds the GIL before it lets others have it


class SafeJSONResponse(JSONResponse):
    """JSON that cannot fail to encode: non-finite floats become null, broken text is replaced."""

    def render(self, content: Any) -> bytes:
        return dump_bytes(content)


def json_response(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return SafeJSONResponse(content, status_code=status, headers=headers)


async def json_response_of(make: Callable[[], Any], status: int = 200,
                           headers: dict[str, str] | None = None) -> Response:
    """`json_response(make())`, with `make` and the encoding run in a worker thread: the answer
    about a large sequence (thousands of groups written back out) is made while the app goes on
    answering others."""
    body = await asyncio.to_thread(lambda: dump_bytes(make()))
    return Response(body, status_code=status, headers=headers, media_type="application/json")


async def json_list_response(request: Request, items: Sequence[T], dump: Callable[[T], bytes],
                             headers: dict[str, str]) -> Response:
    """A JSON array of `items`, each written by `dump`, in a worker thread that lets go of the GIL
    between two items once it has held it for `HOLD_GIL` seconds: a page of records is written
    while an answer to another client goes on, which then never waits for the whole page (pydantic
    holds the GIL while it writes, and Python takes it back from a thread only after 5 ms).
    Gzipped there too when the client takes it (the app's gzip would do it on the event loop, or
    hand a large body to a thread of its own): at `GZIP_LEVEL`, as the app's gzip."""
    gzip = "gzip" in request.headers.get("accept-encoding", "")
    body, gzipped = await asyncio.to_thread(_json_list, items, dump, gzip)
    out = {**headers, "Vary": "Accept-Encoding"}
    if gzipped:
        out["Content-Encoding"] = "gzip"
    return Response(body, status_code=200, headers=out, media_type="application/json")


def _json_list(items: Sequence[T], dump: Callable[[T], bytes], gzip: bool) -> tuple[bytes, bool]:
    """The array's bytes, and whether they are gzipped."""
    parts = []
    held = time.perf_counter()
    for item in items:
        parts.append(dump(item))
        if time.perf_counter() - held > HOLD_GIL:
            time.sleep(0)  # the GIL to whoever waits for it
            held = time.perf_counter()
    body = b"[" + b",".join(parts) + b"]"
    if not gzip or len(body) < GZIP_AT_LEAST:
        return body, False
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(body) + compressor.flush(), True


# orjson writes what `json.dumps` would mean (non-finite floats as null, other types through `str`),
# in one C call: a page of fifty runs took ~25 ms of the event loop through `json` and `_finite`.
# What it refuses (a lone surrogate, an integer beyond 64 bits, nesting past 254 levels) goes the
# slow way, which repairs or writes it.
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def dump_bytes(content: Any) -> bytes:
    """`dumps(content)` as UTF-8; never raises, whatever a tool put in a record."""
    try:
        return orjson.dumps(content, default=str, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return _slow_dumps(content).encode("utf-8")


def dumps(content: Any) -> str:
    """JSON text for any record or event; never raises, whatever a tool put in a record."""
    return dump_bytes(content).decode("utf-8")


def _slow_dumps(content: Any) -> str:
    return json.dumps(_finite(content), ensure_ascii=False, allow_nan=False, default=str)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {_text(str(k)): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return _text(value) if isinstance(value, str) else value


def _text(value: str) -> str:
    return value.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(value) else value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


THREAD_ABOVE = 64 * 1024  # bodies larger than this are decoded in a worker thread


async def read_json(request: Request, *, expect: str) -> Any:
    """The body as JSON; `expect` names what should be sent, for the messages. A large body is
    decoded and checked off the event loop, so the app keeps answering meanwhile."""
    body = await request.body()
    if len(body) > THREAD_ABOVE:
        return await asyncio.to_thread(decode_json, body, expect)
    return decode_json(body, expect)


def decode_json(body: bytes, expect: str) -> Any:
    if not body.strip():
        raise Unreadable(f"the request body is empty: send {expect}")
    try:
        value = json.loads(body.decode("utf-8-sig"), **NUMBER_HOOKS)
    except RecursionError:
        raise Unreadable(f"the request body is nested too deeply (more than {MAX_DEPTH} levels)") from None
    except UnicodeDecodeError:
        raise Unreadable(f"the request body is not UTF-8 text: send {expect} as JSON") from None
    except json.JSONDecodeError as exc:
        raise Unreadable(f"the request body is not valid JSON: {exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno} (character {exc.pos}); send {expect}") from None
    except ValueError as exc:
        raise Unreadable(f"the request body is not valid JSON: {exc}; send {expect}") from None
    problem = _shape_problem(value)
    if problem:
        raise Unreadable(f"the request body {problem}")
    return value


def _shape_problem(value: Any) -> str | None:
    """Iteratively (a deep document must not exhaust the stack here): depth and unencodable text."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        item, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            return f"is nested too deeply (more than {MAX_DEPTH} levels, at {where or 'the top'})"
        children: Iterable[tuple[Any, str]] = ()
        if isinstance(item, dict):
            for key in item:
                if _has_surrogate(key):
                    return f"has a key that is not valid Unicode (a lone surrogate) at {where or 'the top'}"
            children = ((v, f"{where}.{k}" if where else str(k)) for k, v in item.items())
        elif isinstance(item, list):
            children = ((v, f"{where}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, str) and _has_surrogate(item):
            return f"has text that is not valid Unicode (a lone surrogate) at {where or 'the top'}"
        stack.extend((child, depth + 1, path) for child, path in children)
    return None


def type_name(value: Any) -> str:
    """The JSON kind of a value with its article, for messages ("an array")."""
    kind = json_type_name(value)
    return kind if kind == "null" else (f"an {kind}" if kind[0] in "aeiou" else f"a {kind}")


class BodyLimitMiddleware:
    """413 for a body over `limit` bytes on the API and the login form, before any handler reads it.

    The body is read here (it is small by then) and replayed to the app, so a client that lies in
    `Content-Length` or streams without one is still cut off at the limit, and one that sends less
    than it announced (or trickles it) is answered 408 after `seconds` instead of holding a request
    open for ever.
    """

    def __init__(self, app: ASGIApp, *, limit: int = MAX_BODY_BYTES,
                 prefixes: tuple[str, ...] = LIMITED_PREFIXES, seconds: float = BODY_SECONDS) -> None:
        self.app = app
        self.limit = limit
        self.prefixes = prefixes
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            if not declared.isdigit():
                await _refuse(send, Unreadable(f"the Content-Length header is not a number: {declared[:40]!r}"))
                return
            if int(declared) > self.limit:
                await _refuse(send, TooLarge(self._too_large()))
                return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.seconds):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.limit:
                        await _refuse(send, TooLarge(self._too_large()))
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            late = (f"the request body did not arrive within {self.seconds:g} s "
                    f"({size} bytes came{f' of {declared}' if declared else ''})")
            await _answer(send, 408, {"error": late, "detail": late})
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"the request body is larger than the limit of {megabytes(self.limit)} ({self.limit} bytes)"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return None


async def _refuse(send: Send, exc: SeqDeskError) -> None:
    """Answer as the routes answer a family (`gui.api.errors`): before any route, so here."""
    await _answer(send, exc.status, {"detail": str(exc), "code": exc.code})


async def _answer(send: Send, status: int, content: dict[str, Any]) -> None:
    body = dumps(content).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
