"""A tool's result that holds more than text: images, audio, links to resources, embedded files.

An MCP tool answers with content blocks. Text alone stays text (so it fits a `string` output). When
any other block comes back, the step's value is an object `{"text": …, "content": [parts]}`: `text`
joins the text blocks (what a later step usually wants), and each part keeps one block:

    {"type": "text", "text": …}
    {"type": "image" | "audio", "mime_type": "image/png", "data": <base64>}
    {"type": "resource_link", "uri": …, "name": …, "title": …, "description": …, "mime_type": …}
    {"type": "resource", "uri": …, "mime_type": …, "text": …}   (or "data": <base64> for a binary file)

Media too large to keep in the run record is dropped with the reason in `omitted`. `parts_of` is what
the run panel reads to show images, play audio and link the resources; it accepts only well-formed
parts (a MIME type that is a MIME type, base64 that is base64), because the value comes from a server.
"""

from __future__ import annotations

import re
from typing import Any

MAX_MEDIA_CHARS = 4 * 1024 * 1024  # base64 characters kept per image or audio block (about 3 MB)
_MIME = re.compile(r"^[a-z]+/[a-z0-9][a-z0-9.+-]*$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/\s]*={0,2}\s*$")
PART_TYPES = frozenset({"text", "image", "audio", "resource_link", "resource"})


def good_mime(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= 100 and bool(_MIME.match(value))


def good_base64(value: Any) -> bool:
    return isinstance(value, str) and bool(_BASE64.match(value))


def media_part(kind: str, data: Any, mime: Any) -> dict[str, Any]:
    """An image or audio part, or the same part with `omitted` saying why its data is not kept."""
    part: dict[str, Any] = {"type": kind, "mime_type": mime if good_mime(mime) else "application/octet-stream"}
    if not good_base64(data):
        part["omitted"] = "the server sent data that is not base64"
    elif len(data) > MAX_MEDIA_CHARS:
        part["omitted"] = f"too large to keep in the run record ({len(data) * 3 // 4 // 1_000_000} MB)"
    else:
        part["data"] = data
    return part


def content_value(parts: list[dict[str, Any]]) -> Any:
    """The step's value: the joined text when every part is text, else `{"text", "content"}`."""
    text = "\n".join(p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str))
    if all(p.get("type") == "text" for p in parts):
        return text
    return {"text": text, "content": parts}


def parts_of(value: Any) -> list[dict[str, Any]] | None:
    """The parts of a value made by `content_value`; None for any other value."""
    if not isinstance(value, dict) or set(value) != {"text", "content"} or not isinstance(value["content"], list):
        return None
    parts = [p for p in value["content"] if isinstance(p, dict) and p.get("type") in PART_TYPES]
    return parts if len(parts) == len(value["content"]) else None


def safe_link(uri: Any) -> str | None:
    """`uri` when a browser may open it (http or https); None otherwise (file:, javascript:, a server's own scheme)."""
    if not isinstance(uri, str) or len(uri) > 4000:
        return None
    return uri if re.match(r"^https?://[^\s\"'<>]+$", uri, re.IGNORECASE) else None
