"""How a server's refusal of SeqDesk (HTTP 401 or 403 from its own address) is recognised and said.

A refusal is not a failure to retry: the server answered, and will answer the same until the person
signs in (or fixes the headers it is sent). The connection notes the status of a response from the
server's endpoint (`same_endpoint`: its sign-in pages may answer 401 too, which says nothing), or
the background sign-in's `SignInNeeded` somewhere in what the SDK raised (`caused_by`). A refusal
that says how to get in (a `WWW-Authenticate` header: sign in, or a wider `scope`) is kept as a
`Challenge`, so the sign-in the person starts answers that refusal, whichever request met it
(`ChallengeReplay` hands it to the SDK's provider).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx2


@dataclass(frozen=True)
class Challenge:
    """What the server said when it refused a request: its status and its `WWW-Authenticate`."""

    status: int
    www_authenticate: str

    def field(self, name: str) -> str | None:
        found = re.search(rf'{name}=(?:"([^"]*)"|([^\s,]+))', self.www_authenticate)
        return (found.group(1) if found.group(1) is not None else found.group(2)) if found else None

    @property
    def scope(self) -> str | None:
        """The scopes it asked for (space-separated), when it said."""
        return self.field("scope")

    @property
    def step_up(self) -> bool:
        """A signed-in request that needs more scopes (403 `insufficient_scope`), not a missing sign-in."""
        return self.status == 403 and self.field("error") == "insufficient_scope"

    def response(self, request: httpx2.Request) -> httpx2.Response:
        """The refusal again, for the SDK's provider to answer (`gui.mcp.sign_in`)."""
        return httpx2.Response(self.status, headers={"WWW-Authenticate": self.www_authenticate}, request=request)


def challenge_of(response: httpx2.Response) -> Challenge | None:
    header = response.headers.get("www-authenticate")
    if response.status_code not in (401, 403) or not header or not header.lower().startswith("bearer"):
        return None
    return Challenge(response.status_code, header)


def refused_words(status: int) -> str:
    why = "it answered 401: not signed in" if status == 401 else "it answered 403: not allowed"
    return (f"this server needs you to sign in ({why}). Sign in, or check the headers it is sent; "
            "SeqDesk does not try again by itself")


def caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, kind):
            return True
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        stack.extend((item.__cause__, item.__context__))
    return False


def same_endpoint(a: str, b: str) -> bool:
    pa, pb = httpx2.URL(a), httpx2.URL(b)
    return (pa.scheme, pa.host, pa.port, pa.path.rstrip("/")) == (pb.scheme, pb.host, pb.port, pb.path.rstrip("/"))


class ChallengeReplay(httpx2.AsyncBaseTransport):
    """Answers the probe's first request with the refusal the connection met (a later request
    refused, or a scope asked for), so the SDK's provider signs in for that refusal even when the
    server lets `initialize` in without a token; every other request goes out as it is."""

    def __init__(self, url: str, challenge: Challenge, inner: httpx2.AsyncBaseTransport) -> None:
        self.url, self.challenge, self.inner = url, challenge, inner
        self._replayed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not self._replayed and same_endpoint(str(request.url), self.url):
            self._replayed = True
            return self.challenge.response(request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
