"""`http_get`: fetch a web address, after the person approves it. A GET changes nothing here, so it
runs in parallel; but the address itself can carry data off the machine (what an earlier step read,
in its path or query), so it asks first, with the server's name in bold.

A JSON answer becomes an object (so a later step can use its fields); anything else is text. Errors
are phrased for a person: which address, what the server said, or why no connection was made. The
body is read in chunks against a limit so that a huge download cannot fill the memory.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import ConfigDict, Field, field_validator

from gui.core.errors import ToolError
from gui.core.tools import ApprovalSummary, ModelTool, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, excerpt, invalid, parse_args

if TYPE_CHECKING:  # httpx is imported when an address is checked or fetched: it loads its own CLI (slow)
    import httpx

MAX_BODY_BYTES = 5 * 1024 * 1024
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class HttpGetArgs(ToolArgs):
    """Fetch a web address."""

    model_config = ConfigDict(title=N_("Fetch a web address"))

    url: str = Field(
        title=N_("Web address"),
        description=N_("The address to fetch, starting with http:// or https://, for example https://example.com/status"),
    )
    headers: dict[str, str] | None = Field(
        default=None,
        title=N_("Extra headers"),
        description=N_("Optional extra request headers, such as Accept or Authorization. Usually left empty."),
    )
    timeout: float = Field(
        default=30,
        gt=0,
        le=3600,
        title=N_("Time limit (seconds)"),
        description=N_("Give up if the server has not answered within this many seconds."),
    )

    @field_validator("url")
    @classmethod
    def _http_only(cls, value: str) -> str:
        value = value.strip()
        try:
            parts = urlsplit(value)
            _ = parts.port  # a port out of range
        except ValueError as exc:
            raise invalid(f"the address is not valid: {exc}") from None
        if parts.scheme.lower() not in ("http", "https"):
            raise invalid(N_("the address must start with http:// or https://"))
        if not parts.hostname:
            raise invalid(N_("the address has no server name"))
        import httpx

        try:
            httpx.URL(value)
        except httpx.InvalidURL as exc:
            raise invalid(f"the address is not valid: {exc}") from None
        return value

    @field_validator("headers")
    @classmethod
    def _sendable(cls, headers: dict[str, str] | None) -> dict[str, str] | None:
        for name, value in (headers or {}).items():
            if not _TOKEN.fullmatch(name):
                raise invalid(f"'{name}' is not a valid header name (letters, digits and - only)")
            if not value.isascii() or any(c in value for c in "\r\n\0"):
                raise invalid(f"the value of header '{name}' must be plain text on one line")
        return headers


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


class HttpGet(ModelTool):
    name = "http_get"
    description = N_(
        "Fetches a web address and gives back the page or data it returns. "
        "Data in JSON format comes back as an object whose fields later steps can use. "
        "It asks you before each address, unless a rule you made allows it."
    )
    concurrency_safe = True
    runs_on_hosts = True  # a team's worker carries it
    approval = "tool"
    Args = HttpGetArgs

    def approval_summary(self, args: dict[str, Any]) -> ApprovalSummary:
        url = str(args.get("url", ""))
        host = urlsplit(url).hostname or url
        if args.get("headers"):
            return ApprovalSummary.of(N_("Send a request to {host} with extra headers: {url}"), highlight=host,
                                      host=host, url=url)
        return ApprovalSummary.of(N_("Send a request to {host}: {url}"), highlight=host, host=host, url=url)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        import httpx

        a = parse_args(self, HttpGetArgs, args)
        try:
            async with httpx.AsyncClient(timeout=a.timeout, follow_redirects=True) as client:
                async with client.stream("GET", a.url, headers=a.headers) as response:
                    body = await _read_body(response, a.url)
        except httpx.TimeoutException:
            raise ToolError(N_("{url} did not answer within {seconds} seconds").format(
                url=a.url, seconds=f"{a.timeout:g}")) from None
        except httpx.ConnectError as exc:
            raise ToolError(N_("could not connect to {url}: {reason}").format(
                url=a.url, reason=exc or "connection refused")) from None
        except httpx.TooManyRedirects:
            raise ToolError(N_("{url} redirects too many times").format(url=a.url)) from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise ToolError(N_("could not fetch {url}: {reason}").format(url=a.url, reason=exc or type(exc).__name__)) \
                from None
        text = body.decode(response.encoding or "utf-8", errors="replace")
        if response.status_code >= 400:
            detail = excerpt(text, 500)
            status = f"{response.status_code} {response.reason_phrase}".strip()
            if detail:
                raise ToolError(N_("{url} answered {status}: {detail}").format(url=a.url, status=status, detail=detail))
            raise ToolError(N_("{url} answered {status}").format(url=a.url, status=status))
        if _is_json(response.headers.get("content-type", "")):
            try:
                return json.loads(text)
            except ValueError:
                raise ToolError(N_("{url} said it sent JSON, but the answer is not valid JSON").format(
                    url=a.url)) from None
        return text


async def _read_body(response: httpx.Response, url: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ToolError(_too_big(url))
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise ToolError(_too_big(url))
    return bytes(body)


def _too_big(url: str) -> str:
    return N_("the answer from {url} is larger than {size} MB, too big to fetch").format(
        url=url, size=MAX_BODY_BYTES // (1024 * 1024))
