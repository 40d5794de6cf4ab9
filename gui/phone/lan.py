"""The second listener, on this computer's address on the local network.

It serves the very same app (the same pages, API and gates) through a second uvicorn server in
the app's own event loop, so turning it on or off needs no restart. The socket is bound here
first, so a port in use is a sentence, not uvicorn's exit.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

from gui.core.errors import Unavailable
from gui.i18n import _

log = logging.getLogger(__name__)


class LanError(Unavailable):
    """The listener could not be started; the message says why, for a person."""


def lan_address() -> str | None:
    """This computer's address on its local network (the one a route out would use), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("10.254.254.254", 1))  # no packet is sent: this only picks a route
            address = str(sock.getsockname()[0])
        except OSError:
            return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    return None if ip.is_loopback or ip.is_unspecified else address


class LanListener:
    def __init__(self) -> None:
        self.server: Any = None
        self.host: str | None = None
        self.port: int | None = None

    @property
    def running(self) -> bool:
        return self.server is not None

    async def start(self, app: Any, host: str, port: int) -> None:
        import uvicorn

        from gui.serving import HTTP_PARSER

        if self.running:
            return
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError as exc:
            sock.close()
            raise LanError(_("could not listen on {address} ({problem})").format(
                address=f"{host}:{port}", problem=exc.strerror or exc)) from None
        config = uvicorn.Config(app, host=host, port=port, http=HTTP_PARSER, ws="wsproto", lifespan="off",
                                log_level="warning",
                                proxy_headers=False, server_header=False)
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)  # "off": the app's own server ran its lifespan
        await server.startup(sockets=[sock])
        if server.should_exit:
            sock.close()
            raise LanError(_("could not start serving on {address}").format(address=f"{host}:{port}"))
        self.server, self.host, self.port = server, host, port

    async def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.should_exit = True
            try:
                await server.shutdown()
            except Exception:  # noqa: BLE001 - stopping must not fail the caller
                log.warning("the network listener did not stop cleanly", exc_info=True)
