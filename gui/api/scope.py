"""What an ASGI request says about itself, read the same way by every gate: its headers and cookies."""

from __future__ import annotations

from starlette.types import Scope


def headers_of(scope: Scope) -> dict[str, str]:
    """The request's headers, names in lower case (a repeated header: its last value)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def repeated(scope: Scope, names: tuple[str, ...]) -> str | None:
    """The first of `names` (lower case) that the request sends more than once, or None."""
    seen: set[str] = set()
    for key, _value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        if name in names:
            if name in seen:
                return name
            seen.add(name)
    return None


def cookie_of(headers: dict[str, str], name: str) -> str | None:
    """The value of the cookie `name` in the Cookie header, or None."""
    for part in headers.get("cookie", "").split(";"):
        key, _eq, value = part.strip().partition("=")
        if key == name:
            return value
    return None
