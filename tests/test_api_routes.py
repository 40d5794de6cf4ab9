"""Every HTTP route is named in one list (`gui.api.routes`), and only there."""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi import FastAPI
from fastapi.routing import APIRoute

from gui.api import register_api
from gui.api.request_gate import Served
from gui.api.routes import routes
from gui.context import EngineSlot
from gui.phone import PhoneAccess
from gui.prefs import PrefsFile

API = Path(__file__).resolve().parents[1] / "gui" / "api"
METHODS = {"get", "post", "put", "patch", "delete", "head", "options", "api_route", "route", "add_api_route",
           "add_route", "include_router"}


def test_the_app_serves_exactly_the_routes_of_the_list(tmp_path):
    phone = PhoneAccess(Served.in_process(), None, address=lambda: "192.0.2.1")
    phone.open(tmp_path, PrefsFile(tmp_path, "preferences"))
    app = FastAPI()
    register_api(app, engine=EngineSlot().for_api, token="a-token-long-enough-0123", served=Served.in_process(),
                 phone=phone)
    served = sorted((method, r.path) for r in app.routes if isinstance(r, APIRoute) for method in r.methods)
    listed = sorted((r.method, r.path) for r in routes(login=True, phones=True))
    assert served == listed
    assert len(set(listed)) == len(listed)


def test_the_login_form_and_the_pairing_pages_are_there_only_when_they_can_be_used():
    paths = {r.path for r in routes(login=False, phones=False)}
    assert "/login" not in paths and "/api/phone" not in paths and "/pair/{code}" not in paths
    assert all(path.startswith("/api/") for path in paths)


def test_no_module_of_the_api_adds_a_route_of_its_own():
    adding: list[str] = []
    for path in sorted(API.glob("*.py")):
        if path.name == "routes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in {"app", "router"}):
                adding.append(f"{path.name}:{node.lineno}")
    assert adding == []
