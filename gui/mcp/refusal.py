"""How a server's refusal of SeqDesk (HTTP 401 or 403 from its own address) is recognised and said.

A refusal is not a failure to retry: the server answered, and will answer the same until the person
signs in (or fixes the headers it is sent). The connection notes the status of a response from the
server's endpoint (`same_endpoint`: its sign-in pages may answer 401 too, which says nothing), or
the background sign-in's `SignInNeeded` somewhere in what the SDK raised (`caused_by`).
"""

from __future__ import annotations

import httpx2


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
