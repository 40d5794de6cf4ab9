"""How a server's refusal of SeqDesk (HTTP 401 or 403 from its own address) is recognised and said.

A refusal is not a failure to retry: the server answered, and will answer the same until the person
signs in (or fixes the headers it is sent). The connection notes the status of a response from the
server's endpoint (`same_endpoint`: its sign-in pages may answer 401 too, which says nothing), or
the background sign-in's `SignInNeeded` somewhere in what the SDK raised (`caused_by`). A refusal
that says how to get in (a `WWW-Authenticate` header: sign in, or a wider `scope`) is kept as a
`Challenge`, so the sign-in the person starts answers that refusal, whichever request met it
(`ChallengeReplay` hands it to the SDK's provider). A connection keeps what it met in a `Refusal`:
whether the server refuses it now, how, and which step-ups a sign-in answered already.
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


class Refusal:
    """A connection's refusal by its server: the status it refuses with now (None while it lets
    SeqDesk in), its last `Challenge` (kept across attempts: a sign-in answers it), and the step-ups
    a sign-in answered, each with the connection attempt it came after (one try per scope)."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.status: int | None = None
        self._challenge: Challenge | None = None
        self._answered: dict[tuple[int, str | None], int] = {}

    def heard(self, response: httpx2.Response) -> None:
        """Notes a 401/403 from the server's own address (not from its sign-in pages), and how it
        said to get in (its `WWW-Authenticate`), whichever request it answered."""
        if response.status_code in (401, 403) and self.url is not None and same_endpoint(str(response.request.url),
                                                                                          self.url):
            self.status = response.status_code
            self._challenge = challenge_of(response) or self._challenge

    def sign_in_needed(self) -> None:
        """The background sign-in found no token to send (or could not refresh it)."""
        self.status = self.status or 401

    @property
    def challenge(self) -> Challenge | None:
        """How the server last refused, when it said how to get in; None while nothing is refused."""
        return self._challenge if self.status is not None else None

    def wanted(self) -> Challenge | None:
        """The refusal a sign-in would answer, unless a sign-in answered that one already."""
        challenge = self.challenge
        if challenge is None or (challenge.step_up and self.answered_at(challenge) is not None):
            return None
        return challenge

    def signed_in(self, attempt: int) -> None:
        """A sign-in answered the current refusal, after connection attempt `attempt`."""
        if self._challenge is not None and self._challenge.step_up:
            self._answered[_key(self._challenge)] = attempt

    def answered_at(self, challenge: Challenge) -> int | None:
        """The connection attempt after which a sign-in answered this step-up, if one did."""
        return self._answered.get(_key(challenge))

    def for_scope(self) -> bool:
        """Refused for want of a scope (403 `insufficient_scope`): a refreshed token has the same
        scopes, only a sign-in can help."""
        return self.status == 403 and self._challenge is not None and self._challenge.step_up

    def words(self) -> str:
        """Why it is down, refused: sign in; or, for more scopes a sign-in gave already, that it did not help."""
        status = self.status or 401
        challenge = self._challenge
        if challenge is not None and challenge.step_up and self.answered_at(challenge) is not None:
            return (f"the server still refuses SeqDesk after you signed in for the scope it asked for "
                    f"({challenge.scope}): it does not grant it; ask the server's owner (HTTP {status})")
        if challenge is not None and challenge.step_up:
            return (f"this server needs you to sign in again, for more permissions (scope {challenge.scope}); "
                    "SeqDesk does not try again by itself")
        return refused_words(status)


def _key(challenge: Challenge) -> tuple[int, str | None]:
    return challenge.status, " ".join(sorted((challenge.scope or "").split())) or None


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
