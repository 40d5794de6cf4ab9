"""Every page of SeqDesk in one list: the address a person opens, which function draws it, and the
role it needs on a team server (`gui.api.roles`: checked before the page is drawn; a person without
it gets a page saying which role, 403).

Each page is a plain async function in the module of its page, `show(ctx, **values)`: it is handed
the app's context (`gui.context.AppContext`) and the values of its path and query, typed by its own
signature, as NiceGUI's `@ui.page` functions are. `add_pages` gives each its context and registers it
once per app (`gui.ui.register_pages`); no page module registers anything itself (a test checks).
The HTTP API's routes are listed the same way in `gui.api.routes`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple, get_type_hints

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from nicegui import app, ui

from gui.api.roles import SIGNED_IN, allowed, person_of
from gui.core.errors import NotSignedIn, SeqDeskError
from gui.core.people import ADMIN, APPROVER, AUTHOR, RUNNER
from gui.i18n import _
from gui.mcp.config import CALLBACK_PATH
from gui.ui.pages import editor, inbox, me, not_found, oauth_callback, people, run, runs, sequences, settings

if TYPE_CHECKING:
    from gui.context import AppContext


class Page(NamedTuple):
    path: str
    show: Callable[..., Awaitable[Any]]  # show(ctx, **the path's and the query's values)
    plain: bool = False  # answers with its own HTML (a FastAPI route), not a NiceGUI page
    role: str = SIGNED_IN  # what it needs on a team server (`gui.api.roles`)


def pages(*, team: bool = False) -> list[Page]:
    """The pages; a team server's also has People (admins) and each person's own page."""
    listed = [
        Page("/", sequences.sequences_page),
        Page("/sequences/new", editor.new_sequence_page, role=AUTHOR),
        Page("/sequences/{name:path}/edit", editor.edit_sequence_page, role=AUTHOR),
        Page("/run", run.run_page, role=RUNNER),
        Page("/run/{run_id}", run.run_detail_page),
        Page("/runs", runs.history_page),
        Page("/runs/{run_id}", runs.detail_page),
        Page("/inbox", inbox.inbox_page, role=APPROVER),
        Page("/inbox/{interaction_id}", inbox.inbox_item_page, role=APPROVER),
        Page("/settings", settings.settings_page, role=ADMIN),
        Page(CALLBACK_PATH, oauth_callback.oauth_callback, plain=True, role=ADMIN),
    ]
    if team:
        listed += [Page("/people", people.people_page, role=ADMIN), Page("/me", me.me_page)]
    return listed


def refusal(request: Request, role: str) -> Response | None:
    """None when the signed-in person may open a page that needs `role`; else what they get instead:
    the sign-in page for nobody, a page that says which role it needs (403) for someone without it."""
    try:
        allowed(person_of(request.scope), role)
    except NotSignedIn:
        return RedirectResponse("/login", status_code=303)
    except SeqDeskError as exc:
        words = _("You may not open this page: it needs the {role} role. An admin gives roles on the People "
                  "page.").format(role=role)
        return HTMLResponse(f'<!doctype html><meta charset="utf-8"><title>SeqDesk</title><main style="font-family:'
                            f'system-ui;padding:2rem"><p role="alert" data-code="{exc.code}">{words}</p>'
                            f'<p><a href="/">{_("Back to the sequences")}</a></p></main>', status_code=403)
    return None


def add_pages(ctx: AppContext, listed: list[Page]) -> None:
    for page in listed:
        bound = _with_context(page.show, ctx, page.role)
        if page.plain:
            app.add_api_route(page.path, bound, methods=["GET"], include_in_schema=False)
        else:
            ui.page(page.path)(bound)
    app.add_exception_handler(404, not_found.not_found)  # any other address: "This page does not exist"


def _with_context(show: Callable[..., Awaitable[Any]], ctx: AppContext, role: str = SIGNED_IN
                  ) -> Callable[..., Awaitable[Any]]:
    """`show` with `ctx` given: what NiceGUI (or FastAPI) calls with the request and the path's and
    the query's values, whose names and types it reads from the signature (`show`'s, without its first
    parameter). On a team server the person's role is checked first (`refusal`)."""
    hints = get_type_hints(show, localns={"AppContext": type(ctx)})
    values = [p.replace(annotation=hints.get(p.name, p.annotation))
              for p in list(inspect.signature(show).parameters.values())[1:]]
    takes_request = any(p.name == "request" for p in values)
    if not takes_request:
        values.insert(0, inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request))

    @functools.wraps(show)
    async def page(**given: Any) -> Any:
        request = given["request"] if takes_request else given.pop("request")
        if ctx.team:
            refused = refusal(request, role)
            if refused is not None:
                return refused
        return await show(ctx, **given)

    page.__signature__ = inspect.Signature(values)  # type: ignore[attr-defined]
    return page
