"""The page for an address that is no page of SeqDesk (404): "There is no page at /people", in the
app's look, with the way back to the Sequences page; never NiceGUI's "HTTPException: 404: Not Found".

NiceGUI answers an unknown address with its own error page; `not_found` takes its place (registered
with the page list, `gui.ui.pages.routes`). A route of the app's own that answers 404 itself (a
FastAPI route) keeps its JSON, as under NiceGUI; `/api/...` never reaches here (`gui.api` answers
those with JSON).
"""

from __future__ import annotations

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import Response
from nicegui import Client, app, ui
from nicegui.page import page
from starlette.exceptions import HTTPException

from gui.i18n import _
from gui.ui.theme import plain_frame


async def not_found(request: Request, exception: Exception) -> Response:
    """What a 404 answers: the page below, or the JSON of a route that said 404 itself."""
    endpoint = request.scope.get("endpoint")
    if endpoint is not None and endpoint is not app and not request.scope.get("nicegui_page_path") \
            and isinstance(exception, HTTPException):
        return await http_exception_handler(request, exception)
    with Client(page(""), request=request) as client:
        draw(request.url.path)
    return client.build_response(request, 404)


def draw(path: str) -> None:
    with plain_frame(_("No such page")), ui.card().classes("w-full max-w-xl gap-3 p-6").props("flat bordered") \
            .mark("not-found"):
        ui.label(_("This page does not exist")).classes("text-xl font-semibold")
        ui.label(_("There is no page at {path} in SeqDesk: the address may be mistyped, or be that of a page "
                   "only a team server has.").format(path=path)).classes("text-sm break-words").mark("not-found-why")
        ui.link(_("Go to the Sequences page"), "/").classes("text-base").mark("not-found-home")

