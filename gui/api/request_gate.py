"""The request gate: only the app itself, or a program on this machine, may talk to the app.

SeqDesk runs shell commands once a person approves them, and a browser will send requests to
127.0.0.1 on behalf of any web page the person visits. This plain ASGI middleware sits in front of
everything (the API, the pages, the event stream, uploads and NiceGUI's socket.io endpoint) and
refuses, before any handler runs:

- a `Host` that is not the address the app serves on (**421**): a page whose DNS name was pointed
  at 127.0.0.1 ("DNS rebinding") sends its own name as the Host;
- a request line in absolute form naming another host (`GET http://evil.example/api/runs`, **421**),
  which outranks the Host header; one naming the app itself is served as its path;
- a `Host`, `Origin` or `Content-Type` header sent more than once (**400**): this gate and the
  handlers behind it could each read another one (this gate the last, Starlette the first);
- an `Origin` that is present and is not the app's own origin (**403**): a browser always names the
  page that sent a cross-site request, including the "simple" ones that need no preflight;
- a body on a POST, PUT, PATCH or DELETE to `/api/` that is not `application/json` (**415**): no
  HTML form and no `text/plain` fetch can send JSON without a preflight, which nothing here allows.

A request without an `Origin` (the CLI, curl, `seqdesk mcp` through the app) keeps working: no
browser sends a cross-origin request without one. The token gate (`gui.api.auth`) sits behind this one.

A refused WebSocket gets the same status and sentence as an HTTP denial response (ASGI's
`websocket.http.response`, which uvicorn offers), or a close before it is accepted (which a server
answers 403) where the server does not offer it: never an error, never a wait.

Every server of the app parses HTTP with h11 (`gui.serving.HTTP_PARSER`): it keeps an absolute-form request line
whole in the scope's path, where this gate sees the host it names; httptools drops that host, and the
request would pass on its Host header alone.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from gui.api.body import dumps
from gui.api.scope import headers_of, repeated

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_JSON_TYPES = ("application/json",)
_ONCE = ("host", "origin", "content-type")  # the headers this gate decides on
_ABSOLUTE = re.compile(r"^([a-z][a-z0-9+.-]*)://([^/?#]*)(.*)$", re.IGNORECASE | re.DOTALL)
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Served:
    """Where the app is served: the Host values it answers to and the origins of its own pages.

    `port=None` accepts any port (only for the in-process test client, which has none);
    `any_ip=True` (the app listens on every interface) accepts any IP address as the host, since a
    DNS-rebinding page can only send a name, never an address it does not own.
    """

    names: frozenset[str]
    port: int | None
    any_ip: bool = False
    schemes: tuple[str, ...] = ("http", "https")
    # (address, port) pairs served for a while: the network listener for phones (`gui.phone`),
    # added when it is turned on and removed when it is turned off. Only IP addresses go here.
    also: set[tuple[str, int]] = field(default_factory=set, compare=False, hash=False)

    @classmethod
    def at(cls, host: str, port: int | None, *, extra_names: Iterable[str] = ()) -> Served:
        host = host.strip().lower()
        names = {*LOOPBACK_NAMES, *(n.lower() for n in extra_names)}
        if host not in WILDCARDS:
            names.add(_bracket(host))
        return cls(names=frozenset(names), port=port, any_ip=host in WILDCARDS)

    @classmethod
    def in_process(cls) -> Served:
        """Any port on the loopback names, plus `test`: the host httpx's in-process transport (and so
        NiceGUI's test client) sends. For the test entry file and tests, never for `seqdesk`."""
        return cls.at("127.0.0.1", None, extra_names=("test",))

    def host_ok(self, value: str) -> bool:
        name, port = split_host(value)
        return self._ours(name, port if port is not None else 80)

    def origin_ok(self, origin: str) -> bool:
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in self.schemes or not parts.netloc or parts.path or parts.query:
            return False  # "null" (a sandboxed frame, a file) has no netloc
        return self.authority_ok(parts.scheme, parts.netloc)

    def authority_ok(self, scheme: str, authority: str) -> bool:
        """`authority` (host and port, as in a URL of `scheme`) is where the app is served."""
        name, port = split_host(authority)
        return self._ours(name, port if port is not None else _DEFAULT_PORTS.get(scheme.lower(), 80))

    def _ours(self, name: str | None, port: int) -> bool:
        if name is None:
            return False
        if (name.strip("[]"), port) in self.also:
            return True
        if self.port is not None and port != self.port:
            return False
        return name in self.names or (self.any_ip and _is_ip(name))

    @property
    def origins(self) -> list[str]:
        """The app's own origins, for socket.io's CORS list (`*` would let every site in)."""
        suffix = f":{self.port}" if self.port is not None else ""
        extra = [f"http://{_bracket(name)}:{port}" for name, port in self.also]
        return sorted({*(f"{scheme}://{name}{suffix}" for name in self.names for scheme in self.schemes), *extra})


def split_host(value: str) -> tuple[str | None, int | None]:
    """`("127.0.0.1", 8080)` from `127.0.0.1:8080`; `(None, None)` for a malformed value."""
    value = value.strip().lower()
    if not value or any(c in value for c in "/@\\ ?#"):
        return None, None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None, None
        name, rest = value[: end + 1], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None, None
        port_text = rest[1:] if rest else None
    else:
        name, sep, port_text = value.partition(":")
        if not sep:
            port_text = None
    if port_text is None:
        return name, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None, None
    return name, int(port_text)


@dataclass
class RequestGate:
    """The ASGI middleware; `served` says which hosts and origins are the app's own."""

    app: ASGIApp
    served: Served
    refused: list[tuple[int, str]] = field(default_factory=list, repr=False)  # the last few, for tests/logs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        twice = repeated(scope, _ONCE)
        if twice is not None:
            await self._refuse(scope, send, 400, f"the request has more than one {twice.title()} header: "
                                                 "send it once")
            return
        headers = headers_of(scope)
        target = _target(scope)
        if target is None:
            await self._refuse(scope, send, 400, f"the request line must name a path on this app, not "
                                                 f"{str(scope.get('path', ''))[:80]!r}")
            return
        scheme, authority, raw = target
        if authority is not None:  # absolute form: it names the host, whatever the Host header says
            if not self.served.authority_ok(scheme, authority):
                await self._refuse(scope, send, 421, f"this app does not answer to the host {authority[:80]!r} "
                                                     "named in the request line: send the path alone")
                return
            scope = {**scope, "path": unquote(raw), "raw_path": raw.encode("latin-1")}
        path = str(scope.get("path", ""))
        host = headers.get("host")
        if host is None or not self.served.host_ok(host):
            await self._refuse(scope, send, 421, f"this app does not answer to the host {(host or '(none)')[:80]!r}: "
                                                 "open it at the address it printed when it started")
            return
        origin = headers.get("origin")
        if origin is not None and not self.served.origin_ok(origin):
            await self._refuse(scope, send, 403, f"requests from another site ({origin[:80]!r}) are refused: "
                                                 "only SeqDesk's own pages may use it")
            return
        if (scope["type"] == "http" and path.startswith("/api/") and scope.get("method") in _BODY_METHODS
                and _has_body(headers) and not _is_json(headers.get("content-type", ""))):
            given = headers.get("content-type", "(none)")[:80]
            await self._refuse(scope, send, 415, f"the request body must be JSON (Content-Type: application/json), "
                                                 f"not {given}")
            return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, status: int, detail: str) -> None:
        self.refused = [*self.refused[-9:], (status, str(scope.get("path", "")))]
        await refuse(scope, send, status, detail, [(b"connection", b"close")])


async def refuse(scope: Scope, send: Send, status: int, detail: str,
                 headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer `status` with `{"error": detail, "detail": detail}`, over HTTP or to a WebSocket
    before it is accepted (a denial response where the server offers one, else a close: 403)."""
    body = dumps({"error": detail, "detail": detail}).encode("utf-8")
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    if scope["type"] != "websocket":
        await send({"type": "http.response.start", "status": status, "headers": start})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in (scope.get("extensions") or {}):
        await send({"type": "websocket.http.response.start", "status": status,
                    "headers": [h for h in start if h[0] != b"connection"]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008, "reason": detail[:120]})


def _target(scope: Scope) -> tuple[str, str | None, str] | None:
    """(scheme, authority, path) of the request line: authority None for the usual path form, given
    for the absolute form (`http://host:port/path`); None when it is neither (`*`, a bare word)."""
    raw = scope.get("raw_path")
    line = raw.decode("latin-1") if isinstance(raw, bytes) else str(scope.get("path", ""))
    if line.startswith("/"):
        return "", None, line
    found = _ABSOLUTE.match(line)
    if found is None or found.group(1).lower() not in _DEFAULT_PORTS:
        return None
    return found.group(1).lower(), found.group(2), found.group(3) or "/"


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length", "").strip()
    return "transfer-encoding" in headers or (length != "" and length != "0")


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media in _JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))
