"""A sign-in a person starts (the Sign in button in Settings), through the provider of `gui.mcp.auth`.

`SignIns.start` runs the SDK's provider until it has the sign-in address, which the page opens; the
browser comes back to the app's callback route (`/oauth/callback`), which hands the `code` and
`state` to `answer`. Only a `state` that a sign-in under way made is accepted (compared in constant
time); anything else (a page of another site, a program on this machine, an old link) is refused and
changes nothing. A code that arrives without the verifier PKCE keeps in this process is worthless, too.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from gui.core.errors import Failed
from gui.i18n import _
from gui.mcp.config import McpServerConfig
from gui.mcp.oauth_client import pre_registered
from gui.mcp.secrets import SecretStore

if TYPE_CHECKING:  # the MCP SDK (~1 s to import) is loaded when a sign-in starts, not with the app
    from mcp.shared.auth import AuthorizationCodeResult

    from gui.mcp.refusal import Challenge

log = logging.getLogger(__name__)

SIGN_IN_TIMEOUT = 600.0  # s a person has to finish signing in
_PROBE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "seqdesk", "version": "0.1.0"}}}
_PROBE_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


class SignInError(Failed):
    """A sign-in could not be done; the message says why, in words."""


def safe_sign_in_url(url: str) -> str:
    """The sign-in address, if the page may send the person there: https, or http on this machine."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and host:
        return url
    if parts.scheme == "http" and (host == "localhost" or _is_loopback(host)):
        return url
    raise SignInError(_("the server's sign-in page is not a safe address ({scheme}:// on {host}): SeqDesk opens "
                        "only https:// pages, or http:// on this computer").format(
        scheme=parts.scheme or "?", host=host or _("no host")))


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(eq=False)
class SignIn:
    """One sign-in under way: the person is (or will be) on the server's sign-in page."""

    server: str
    redirect_uri: str
    started: float = field(default_factory=time.monotonic)
    state: str | None = None
    url: str | None = None
    url_ready: asyncio.Event = field(default_factory=asyncio.Event)
    answer: asyncio.Future[AuthorizationCodeResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    task: asyncio.Task[None] | None = None
    error: str | None = None  # why it failed, once done
    finished: asyncio.Event = field(default_factory=asyncio.Event)


class SignIns:
    """The sign-ins people started, at most one per server; each waits `timeout` s for the browser."""

    def __init__(self, secrets: SecretStore, *, timeout: float = SIGN_IN_TIMEOUT) -> None:
        self.secrets = secrets
        self.timeout = timeout
        self._by_server: dict[str, SignIn] = {}

    def pending(self, server: str) -> SignIn | None:
        sign_in = self._by_server.get(server)
        return sign_in if sign_in is not None and not sign_in.finished.is_set() else None

    async def start(self, config: McpServerConfig, redirect_uri: str,
                    on_signed_in: Callable[[str], None] | None = None, *, wait: float = 30.0,
                    challenge: Challenge | None = None) -> str | None:
        """Begin signing in: the address of the server's sign-in page, for the person's browser.

        `challenge`: how the server refused the connection (any request, not only `initialize`):
        the sign-in answers it, asking for the scopes it named, and for those already granted too
        when it asked for more (a step-up). None when the server let SeqDesk in without a sign-in.
        `SignInError` when there is no way to sign in to it (it offers none, it refused the
        registration, it did not answer)."""
        if config.transport != "http" or not config.url:
            raise SignInError(_("only a server at a web address can be signed in to"))
        self.cancel(config.name)
        sign_in = SignIn(config.name, redirect_uri)
        self._by_server[config.name] = sign_in
        sign_in.task = asyncio.create_task(self._flow(sign_in, config, on_signed_in, challenge),
                                           name=f"mcp sign-in {config.name}")
        ended = asyncio.ensure_future(sign_in.finished.wait())
        ready = asyncio.ensure_future(sign_in.url_ready.wait())
        try:
            await asyncio.wait({ended, ready}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            ready.cancel()
        if sign_in.url is not None:
            return sign_in.url
        if sign_in.finished.is_set():
            if sign_in.error:
                raise SignInError(sign_in.error)
            return None
        self.cancel(config.name)
        raise SignInError(_("the server did not say where to sign in within {seconds} s").format(seconds=f"{wait:g}"))

    def answer(self, state: str | None, code: str | None, iss: str | None = None, error: str | None = None,
               description: str | None = None) -> SignIn:
        """The browser came back to the callback with these. `LookupError` when `state` names no
        sign-in under way (nothing changes then)."""
        sign_in = self._find(state)
        if sign_in is None:
            raise LookupError(_("this sign-in link is not one SeqDesk is waiting for (it expired, was used "
                                "already, or came from somewhere else)"))
        if sign_in.answer.done():
            raise LookupError(_("this sign-in was answered already"))
        if error:
            words = f"{error}: {description}" if description else error
            sign_in.answer.set_exception(SignInError(f"the server did not let you in ({words[:200]})"))
        elif not code:
            sign_in.answer.set_exception(SignInError("the server came back without a sign-in code"))
        else:
            from mcp.shared.auth import AuthorizationCodeResult

            sign_in.answer.set_result(AuthorizationCodeResult(code=code, state=state, iss=iss))
        return sign_in

    def _find(self, state: str | None) -> SignIn | None:
        if not state:
            return None
        found = None
        for sign_in in self._by_server.values():
            if (sign_in.state is not None and not sign_in.finished.is_set()
                    and hmac.compare_digest(sign_in.state.encode(), state.encode("utf-8", "replace"))):
                found = sign_in
        return found

    def cancel(self, server: str) -> None:
        sign_in = self._by_server.pop(server, None)
        if sign_in is not None and sign_in.task is not None and not sign_in.task.done():
            sign_in.task.cancel()

    async def close(self) -> None:
        tasks = [s.task for s in self._by_server.values() if s.task is not None and not s.task.done()]
        for server in list(self._by_server):
            self.cancel(server)
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _flow(self, sign_in: SignIn, config: McpServerConfig, on_signed_in: Callable[[str], None] | None,
                    challenge: Challenge | None) -> None:
        import httpx2

        from gui.mcp.auth import StoredTokens, TokenProvider, client_metadata

        storage = StoredTokens(self.secrets, config.name, sign_in.redirect_uri, config.oauth_client_id)
        granted = None
        if challenge is not None and challenge.step_up:  # more scopes, and keep those it granted
            kept = await storage.get_tokens()
            granted = kept.scope if kept is not None else None
        storage.forget_tokens()  # the person asked to sign in: a fresh sign-in, not an old token

        async def redirect(url: str) -> None:
            if sign_in.url is not None:  # the SDK starts over: the server refused the token it just gave
                raise SignInError(_("the server refused SeqDesk right after the sign-in (it did not take "
                                    "the token it had just given)"))
            sign_in.url = safe_sign_in_url(url)
            states = parse_qs(urlsplit(url).query).get("state") or []
            sign_in.state = states[0] if states else None
            sign_in.url_ready.set()

        async def callback() -> AuthorizationCodeResult:
            try:
                return await asyncio.wait_for(asyncio.shield(sign_in.answer), self.timeout)
            except TimeoutError:
                raise SignInError(_("nobody finished signing in within {minutes} minutes").format(
                    minutes=f"{self.timeout / 60:g}")) from None

        provider = TokenProvider(str(config.url), client_metadata(sign_in.redirect_uri, granted), storage=storage,
                                 redirect_handler=redirect, callback_handler=callback)
        transport: httpx2.AsyncBaseTransport = httpx2.AsyncHTTPTransport()
        if challenge is not None:
            from gui.mcp.refusal import ChallengeReplay

            transport = ChallengeReplay(str(config.url), challenge, transport)
        try:
            if config.oauth_client_id:  # kept as the registration: the background connection then signs in with it
                await storage.set_client_info(pre_registered(config.oauth_client_id, None, sign_in.redirect_uri))
            async with httpx2.AsyncClient(headers=config.header_values(), auth=provider, transport=transport,
                                          timeout=httpx2.Timeout(30.0)) as http:
                response = await http.post(str(config.url), json=_PROBE, headers=_PROBE_HEADERS)
                if response.status_code in (401, 403):
                    raise SignInError(_("the server still refuses SeqDesk after signing in (HTTP {status})").format(
                        status=response.status_code))
                session = response.headers.get("mcp-session-id")
                if session:  # the probe opened a session: end it (best effort)
                    with contextlib.suppress(httpx2.HTTPError):
                        await http.delete(str(config.url), headers={"mcp-session-id": session})
        except asyncio.CancelledError:
            sign_in.error = _("the sign-in was cancelled")
            raise
        except SignInError as exc:
            sign_in.error = str(exc)
        except Exception as exc:  # every failure of a server's sign-in is said, never a crash
            sign_in.error = sign_in_words(exc)
            log.info("signing in to the MCP server %s failed: %s", config.name, exc)
        finally:
            sign_in.finished.set()
        if sign_in.error is None and on_signed_in is not None:
            on_signed_in(config.name)


def sign_in_words(exc: BaseException) -> str:
    """What went wrong in a sign-in, in a line."""
    import httpx2
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError

    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, SignInError):
        return str(exc)
    text = str(exc).strip()
    if isinstance(exc, OAuthRegistrationError):
        return _("the server does not let SeqDesk register itself to sign in: make a client for SeqDesk in "
                 "the server's own settings and give its Client ID here ({detail})").format(detail=text[:200])
    if isinstance(exc, OAuthFlowError):
        if "registration" in text.lower() or "register" in text.lower():
            return _("the server does not let SeqDesk register to sign in ({detail})").format(detail=text[:200])
        return _("signing in failed: {detail}").format(detail=text[:300])
    detail = f"{type(exc).__name__}: {text[:200]}".rstrip(": ")
    if isinstance(exc, httpx2.HTTPError):
        return _("the server cannot be reached: {detail}").format(detail=detail)
    return _("signing in failed: {detail}").format(detail=detail)
