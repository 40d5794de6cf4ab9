"""The secrets among the documents an export moves, and how they travel: never in clear in the file.

A document's secret parts (an MCP server's header values and the Client secret of its sign-in
client; the notification settings' webhook and
ntfy addresses and SMTP password; a team member's password hash and personal tokens' digests) are
taken out of it (`split`) and written beside it as one Fernet token, sealed with the key in
`SEQDESK_SECRET_KEY` (the team's key: the one its servers are given). The file's first line says so.
An import puts them back (`join`) with the same key; without a key, or with another one, it refuses
with a sentence rather than keep half a server's settings. An export asked to leave them out
(`--without-secrets`) writes none, says so on its first line, and the import then keeps the targets'
own (it compares the documents without them).
"""

from __future__ import annotations

import json
import os
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from gui.moving.errors import BadExport, CannotSeal

KEY_ENV = "SEQDESK_SECRET_KEY"
SEALED = "sealed with SEQDESK_SECRET_KEY"  # what the first line says of the secrets
LEFT_OUT = "left out"
NONE = "none"


def secret_parts(kind: str, doc: dict[str, Any]) -> dict[str, Any]:
    """The secret parts of a document of `kind` (empty: none), by where they sit in it."""
    found: dict[str, Any] = {}
    if kind == "mcp_server":
        found = {name: doc[name] for name in ("headers", "client_secret") if doc.get(name)}
    elif kind == "notifications":
        found = {name: doc[name] for name in ("webhook_url", "ntfy_url") if doc.get(name)}
        smtp = doc.get("smtp")
        if isinstance(smtp, dict) and smtp.get("password"):
            found["smtp.password"] = smtp["password"]
    elif kind == "person":
        if doc.get("password_hash"):
            found["password_hash"] = doc["password_hash"]
        digests = {token["token_id"]: token["digest"] for token in doc.get("tokens", []) if token.get("digest")}
        if digests:
            found["tokens.digest"] = digests
    return found


def split(kind: str, doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the document without its secret parts, those parts)."""
    parts = secret_parts(kind, doc)
    if not parts:
        return doc, {}
    plain = json.loads(json.dumps(doc))
    for where in parts:
        _put(plain, where, None)
    return plain, parts


def join(doc: dict[str, Any], parts: dict[str, Any]) -> dict[str, Any]:
    """The document with its secret parts back in place."""
    whole = json.loads(json.dumps(doc))
    for where, value in parts.items():
        _put(whole, where, value)
    return whole


def _put(doc: dict[str, Any], where: str, value: Any) -> None:
    if where == "tokens.digest":
        for token in doc.get("tokens", []):
            token["digest"] = value.get(token.get("token_id")) if value is not None else None
        return
    if where == "headers":
        doc["headers"] = value if value is not None else {}
        return
    if where == "client_secret":  # a server without one has no such field (as `places` reads it)
        if value is None:
            doc.pop(where, None)
        else:
            doc[where] = value
        return
    if "." in where:
        outer, inner = where.split(".", 1)
        if isinstance(doc.get(outer), dict):
            doc[outer][inner] = value
        return
    doc[where] = value


class Seal:
    """Seals secret parts for a file, and opens them again, with `SEQDESK_SECRET_KEY`."""

    def __init__(self, key: str | None = None) -> None:
        key = key if key is not None else os.environ.get(KEY_ENV, "")
        try:
            self._fernet = Fernet(key.strip().encode()) if key.strip() else None
        except (ValueError, TypeError):
            raise CannotSeal(f"{KEY_ENV} is not a key SeqDesk can use (32 bytes in URL-safe base64)") from None

    def close(self, parts: dict[str, Any], what: str) -> str:
        if self._fernet is None:
            raise CannotSeal(f"{what} holds secrets, which an export never writes in clear: set {KEY_ENV} to the "
                             "team's key to seal them in the file, or add --without-secrets to leave them out")
        return self._fernet.encrypt(json.dumps(parts).encode("utf-8")).decode()

    def open(self, token: str, where: str) -> dict[str, Any]:
        if self._fernet is None:
            raise BadExport(f"{where} holds secrets sealed with a key: set {KEY_ENV} to the key the export was "
                            "made with")
        try:
            parts = json.loads(self._fernet.decrypt(token.encode()))
        except InvalidToken:
            raise BadExport(f"{where}: its secrets were sealed with another key than {KEY_ENV}: nothing was "
                            "imported") from None
        if not isinstance(parts, dict):
            raise BadExport(f"{where}: its sealed secrets are not what an export writes")
        return parts
