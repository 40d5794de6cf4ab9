"""Every page of SeqDesk in one list: the address a person opens, and which function draws it.

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

from nicegui import app, ui

from gui.mcp.config import CALLBACK_PATH
from gui.ui.pages import editor, inbox, oauth_callback, run, runs, sequences, settings

if TYPE_CHECKING:
    from gui.context import AppContext


class Page(NamedTuple):
    path: str
    show: Callable[..., Awaitable[Any]]  # show(ctx, **the path's and the query's values)
    plain: bool = False  # answers with its own HTML (a FastAPI route), not a NiceGUI page


def pages() -> list[Page]:
    return [
        Page("/", sequences.sequences_page),
        Page("/sequences/new", editor.new_sequence_page),
        Page("/sequences/{name:path}/edit", editor.edit_sequence_page),
        Page("/run", run.run_page),
        Page("/run/{run_id}", run.run_detail_page),
        Page("/runs", runs.history_page),
        Page("/runs/{run_id}", runs.detail_page),
        Page("/inbox", inbox.inbox_page),
        Page("/inbox/{interaction_id}", inbox.inbox_item_page),
        Page("/settings", settings.settings_page),
        Page(CALLBACK_PATH, oauth_callback.oauth_callback, plain=True),
    ]


def add_pages(ctx: AppContext, listed: list[Page]) -> None:
    for page in listed:
        bound = _with_context(page.show, ctx)
        if page.plain:
            app.add_api_route(page.path, bound, methods=["GET"], include_in_schema=False)
        else:
            ui.page(page.path)(bound)


def _with_context(show: Callable[..., Awaitable[Any]], ctx: AppContext) -> Callable[..., Awaitable[Any]]:
    """`show` with `ctx` given: what NiceGUI (or FastAPI) calls with the path's and the query's values,
    whose names and types it reads from the signature (`show`'s, without its first parameter)."""
    hints = get_type_hints(show, localns={"AppContext": type(ctx)})
    values = [p.replace(annotation=hints.get(p.name, p.annotation))
              for p in list(inspect.signature(show).parameters.values())[1:]]

    @functools.wraps(show)
    async def page(**given: Any) -> Any:
        return await show(ctx, **given)

    page.__signature__ = inspect.Signature(values)  # type: ignore[attr-defined]
    return page
