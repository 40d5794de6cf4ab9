"""Where the app listens, and whether it may: loopback, tokens, free ports.

Shared by the app (`seqdesk`) and `seqdesk mcp --http`: off loopback both need a token long enough
that nobody on the network can guess it.
"""

from __future__ import annotations

import ipaddress
import socket

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# uvicorn's `http=` for every server of the app: h11 keeps an absolute-form request line whole, where
# the request gate (`gui.api.request_gate`) sees the host it names; httptools drops that host.
HTTP_PARSER = "h11"


def is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


MIN_TOKEN_LENGTH = 16


def token_problem(host: str, token: str | None) -> str | None:
    """Why the app (or `seqdesk mcp --http`) must not listen on `host` with `token`; None when it may.

    On loopback no token is needed; one that is given is held to the same length as anywhere else,
    since the right token always passes the token gate (only wrong ones are counted), so what keeps a
    guesser out is the token's length, not the count of tries.
    """
    if is_loopback(host) and not token:
        return None
    if not token:
        return (f"refusing to listen on {host} without a token. SeqDesk runs shell commands, so an open port "
                "without one would let anyone on the network run commands. Give --token SECRET (or set "
                "SEQDESK_TOKEN), or leave --host out to stay on 127.0.0.1.")
    if len(token) < MIN_TOKEN_LENGTH:
        who = "any program on this computer" if is_loopback(host) else "anyone on the network"
        return (f"refusing to listen on {host} with a token of {len(token)} characters: {who} "
                f"could guess it and run commands on this computer. Use at least {MIN_TOKEN_LENGTH} characters "
                "(for example: python -c \"import secrets; print(secrets.token_urlsafe(24))\").")
    return None


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def team_url(text: str) -> str:
    """A team server's address as `--connect` / SEQDESK_CONNECT gives it (`http://host:port`, `https://…`),
    without a trailing slash; Invalid with a sentence for anything else."""
    from urllib.parse import urlsplit

    from gui.core.errors import Invalid

    given = text.strip()
    try:
        parts = urlsplit(given)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise Invalid(f"--connect: {given!r} is not a team server's address: give it as the server printed it, "
                      "e.g. http://seqdesk.example:8765")
    return given.rstrip("/")
