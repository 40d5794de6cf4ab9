"""How a client reaches the app over HTTP: who asks (this process, and its token), which certificates
it trusts, how long it waits; and loading that transport ahead of the first request.
"""

from __future__ import annotations

import os
import ssl

import httpx

from gui.wire import CLIENT_PID


def connect(url: str, token: str | None) -> httpx.AsyncClient:
    """A client of the app at `url`, naming this process (an app started in the background for
    programs stays while one it serves lives) and carrying `token` when there is one."""
    headers = {CLIENT_PID: str(os.getpid()), **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.AsyncClient(base_url=url, headers=headers, verify=certificates_for(url),
                             timeout=httpx.Timeout(30, read=None))


async def load_transport() -> None:
    """Load what a client's first request loads: httpx's transport (httpcore, h11) and anyio's asyncio
    backend and sockets, which it connects with. A door that waits for the app it started
    (`gui.doors.app_door`) calls it meanwhile: ~0.05 s of CPU that no longer follows the app's start."""
    import anyio

    transport = httpx.AsyncHTTPTransport(verify=certificates_for("http://"))  # as a client of the app makes it
    await anyio.sleep(0)  # anyio's backend for this loop
    anyio.connect_tcp  # noqa: B018  # anyio loads its sockets when first named
    await transport.aclose()


def certificates_for(url: str) -> ssl.SSLContext | bool:
    """What the client checks a server's certificate against: the system's certificates (True) for an
    https:// address (a team server); for a plain http:// one (the app on this computer), a context
    that trusts no certificate at all, so loading the system's (25–45 ms of CPU at every
    `seqdesk run`) is skipped, and an https answer there would be refused rather than trusted."""
    if url.lower().startswith("http://"):
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies certificates and host names, trusts none
    return True
