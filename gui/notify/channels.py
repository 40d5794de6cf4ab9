"""Sending one notice over one channel; each raises `SendError` with a sentence when it fails.

- webhook: a JSON POST of `Notice.payload()`;
- ntfy: ntfy's JSON publishing (`POST <server>/` with `topic`, `title`, `message`, `click`), so
  titles in any language arrive intact; `click` is the link to the request;
- email: one plain-text message over SMTP (STARTTLS, SSL or plain), sent from a thread.
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from email.message import EmailMessage
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from gui.core.errors import Failed
from gui.i18n import _
from gui.notify.message import Notice
from gui.notify.settings import SmtpSettings

if TYPE_CHECKING:  # httpx loads its own CLI (slow): it is imported when a notice is sent, not with the app
    import httpx

TIMEOUT = 10.0  # s for one attempt


class SendError(Failed):
    """A channel did not take the notice; the message says why, for Settings."""


async def send_webhook(client: httpx.AsyncClient, url: str, notice: Notice) -> None:
    import httpx

    try:
        answer = await client.post(url, json=notice.payload(), timeout=TIMEOUT,
                                   headers={"User-Agent": "SeqDesk notifications"})
    except httpx.HTTPError as exc:
        raise SendError(_("could not reach {where}: {reason}").format(where=_where(url),
                                                                      reason=_reason(exc))) from None
    if not answer.is_success:
        raise SendError(_("{where} answered {status}").format(
            where=_where(url), status=f"{answer.status_code} {answer.reason_phrase}".strip()))


def ntfy_parts(url: str) -> tuple[str, str]:
    """`("https://ntfy.sh/", "my-topic")` from a topic's address."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    base, _slash, topic = path.rpartition("/")
    return urlunsplit((parts.scheme, parts.netloc, base + "/", "", "")), topic


async def send_ntfy(client: httpx.AsyncClient, url: str, notice: Notice) -> None:
    import httpx

    server, topic = ntfy_parts(url)
    body: dict[str, object] = {"topic": topic, "title": notice.subject(), "message": notice.text(),
                               "priority": 4 if notice.kind != "test" else 3,
                               "tags": ["raising_hand" if notice.kind == "request" else "warning"]}
    if notice.url:
        body["click"] = notice.url
        body["actions"] = [{"action": "view", "label": _("Open"), "url": notice.url}]
    try:
        answer = await client.post(server, json=body, timeout=TIMEOUT)
    except httpx.HTTPError as exc:
        raise SendError(_("could not reach {where}: {reason}").format(where=_where(url),
                                                                      reason=_reason(exc))) from None
    if not answer.is_success:
        raise SendError(_("{where} answered {status}").format(
            where=_where(url), status=f"{answer.status_code} {answer.reason_phrase}".strip()))


async def send_email(smtp: SmtpSettings, notice: Notice) -> None:
    message = EmailMessage()
    message["Subject"] = notice.subject()
    message["From"] = smtp.from_addr
    message["To"] = smtp.to_addr
    message.set_content(notice.text())
    await asyncio.to_thread(_send_mail, smtp, message)


def _send_mail(smtp: SmtpSettings, message: EmailMessage) -> None:
    where = f"the mail server {smtp.host}:{smtp.port}"
    try:
        server: smtplib.SMTP
        if smtp.security == "ssl":
            server = smtplib.SMTP_SSL(smtp.host, smtp.port, timeout=TIMEOUT, context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(smtp.host, smtp.port, timeout=TIMEOUT)
        with server:
            if smtp.security == "starttls":
                server.starttls(context=ssl.create_default_context())
            if smtp.username:
                server.login(smtp.username, smtp.password.get_secret_value() if smtp.password else "")
            server.send_message(message)
    except smtplib.SMTPAuthenticationError:
        raise SendError(_("{where} did not accept the user name and password").format(where=where)) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise SendError(_("{where} does not offer that: {problem} (try another security setting)").format(
            where=where, problem=exc)) from None
    except (smtplib.SMTPException, OSError, ssl.SSLError) as exc:
        raise SendError(_("could not send through {where}: {problem}").format(
            where=where, problem=exc or type(exc).__name__)) from None


def _where(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or url[:60]


def _reason(exc: Exception) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {TIMEOUT:g} s"
    text = str(exc).strip()
    return text or type(exc).__name__
