"""Every page is named in one list (`gui.ui.pages.routes`), and only there, as every HTTP route is in
`gui.api.routes`."""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi.routing import APIRoute
from nicegui import app
from nicegui.testing import User
from support.ui import app_ctx

from gui.api.routes import routes
from gui.ui.pages.routes import pages
from gui.ui.theme import ASSETS_URL

UI = Path(__file__).resolve().parents[2] / "gui" / "ui"
ADDING = {"page", "get", "post", "put", "patch", "delete", "head", "options", "api_route", "route", "add_api_route",
          "add_route", "add_page_route", "include_router"}


async def test_the_app_serves_exactly_the_pages_of_the_list(user: User):
    await user.open("/")
    ctx = app_ctx()
    api = {(r.method, r.path) for r in routes(login=ctx.token is not None, phones=ctx.phone is not None)}
    served = sorted((method, r.path) for r in app.routes if isinstance(r, APIRoute) for method in r.methods
                    if (method, r.path) not in api and not r.path.startswith(("/_nicegui/", ASSETS_URL)))
    listed = sorted(("GET", p.path) for p in pages())
    assert served == listed
    assert len(set(listed)) == len(listed)


async def test_each_page_of_the_list_opens(user: User):
    for page in pages():
        if not page.plain and "{" not in page.path:
            await user.open(page.path)
    await user.open("/runs/no-such-run")
    await user.should_see("There is no run no-such-run.")


async def test_an_address_that_is_no_page_says_so_in_the_apps_words_with_the_way_back(user: User):
    await user.open("/")
    for path in ("/people", "/no/such/page"):  # People is a team server's page: not on a desktop
        response = await user.http_client.get(path)
        assert response.status_code == 404
        assert "HTTPException" not in response.text and "Not Found" not in response.text
        assert "This page does not exist" in response.text
        assert f"There is no page at {path} in SeqDesk" in response.text
        assert "Go to the Sequences page" in response.text
    api = await user.http_client.get("/api/no-such-route")  # the API keeps its JSON
    assert api.status_code == 404 and api.json()["detail"].startswith("there is no API route")


def test_no_module_of_the_ui_adds_a_page_of_its_own():
    adding: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        if path == UI / "pages" / "routes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ADDING
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in {"ui", "app", "router"}):
                adding.append(f"{path.relative_to(UI)}:{node.lineno}")
    assert adding == []
