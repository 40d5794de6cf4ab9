"""`GET /api/health`: whether the app is up, open to everyone; its version only to a client that is
logged in (or, without a token, a program on this computer)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

import gui
from gui.api.auth import AUTH_SCOPE_KEY, client_of
from gui.api.body import json_response
from gui.api.shared import Context
from gui.serving import is_loopback


async def health(request: Request, api: Context) -> Response:
    here = is_loopback(client_of(request.scope))
    if (api.token is None and here) or request.scope.get(AUTH_SCOPE_KEY):
        return json_response({"ok": True, "version": gui.__version__})
    return json_response({"ok": True})
