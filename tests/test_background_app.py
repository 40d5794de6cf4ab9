"""The app a door starts in the background for a program serves the HTTP API alone, without NiceGUI,
until a person opens it: then its pages open on the engine it has, and it is the person's app.

A real app in a subprocess (`SEQDESK_BACKGROUND_FOR`, as `gui.second_launch.spawn_background` starts
it), its imports read from its own `-X importtime` lines; and the light app in process behind its
gates, as a stranger meets it: refused as by the person's app, and no page opened for them.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets.sync.client
from support.app import ROOT, clean_env
from support.waiting import wait_until_sync

from gui.api.request_gate import Served
from gui.app import new_context
from gui.background_app import Pages, light_app
from gui.second_launch import FOCUS_PATH, read_endpoint
from gui.settings import Settings

T = 120.0
TOKEN = "a-token-long-enough-0123"


def imported(log: Path, package: str) -> bool:
    """Whether the app's `-X importtime` lines (its log) show `package` imported."""
    return any(line.rstrip().endswith(f"| {package}") or line.rstrip().split("|")[-1].strip() == package
               for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
               if line.startswith("import time:"))


def test_an_app_started_for_a_program_serves_the_api_without_nicegui_and_opens_its_pages_when_asked(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    log = tmp_path / "app.log"
    program = subprocess.Popen(["sleep", "600"])
    env = {**clean_env(data), "SEQDESK_BACKGROUND_FOR": str(program.pid), "SEQDESK_NO_DIALOG": "1",
           "PYTHONPROFILEIMPORTTIME": "1"}
    with log.open("wb") as out:
        app = subprocess.Popen([sys.executable, "-c", "from gui.app import start_background_app; "
                                "raise SystemExit(start_background_app())"], cwd=ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        endpoint = wait_until_sync(lambda: read_endpoint(data), "the app to serve the folder", timeout=T)
        url = str(endpoint["url"])
        assert int(endpoint["pid"]) == app.pid and endpoint["background"] is True
        with httpx.Client(base_url=url, timeout=T) as client:
            assert client.get("/api/sequences").json() == []
            assert client.get("/api/nothing").status_code == 404  # JSON, as the person's app answers
            assert imported(log, "fastapi")  # the lines are there: the API's framework is
            assert not imported(log, "nicegui"), "the app started for a program imported NiceGUI"
            assert not imported(log, "wsproto")  # nor a WebSocket protocol: no page, no page's socket
            page = client.get("/")  # a person opens its address: the pages open, on the engine it has
            assert page.status_code == 200 and "<title>" in page.text and "SeqDesk" in page.text
            assert imported(log, "nicegui")
            with websockets.sync.client.connect(  # the page's socket, as its browser opens it
                    url.replace("http://", "ws://") + "/_nicegui_ws/socket.io/?EIO=4&transport=websocket",
                    origin=websockets.Origin(url), open_timeout=T) as socket:
                assert socket.recv(timeout=T).startswith("0{")  # engine.io's open packet
            assert imported(log, "wsproto")
            assert client.get("/api/health").json()["ok"] is True  # the API answers as before, now NiceGUI's
            joined = client.post(FOCUS_PATH, json={"address_only": True})  # `seqdesk --browser`: theirs now
            assert joined.json() == {"joined": True, "url": f"{url}/"}
        program.kill()
        program.wait(timeout=T)
        assert app.poll() is None  # joined: it stays although its program has gone
    finally:
        if app.poll() is None:
            app.terminate()
        app.wait(timeout=T)
        if program.poll() is None:
            program.kill()
        program.wait(timeout=T)


@pytest.fixture
def pages(tmp_path: Path) -> Pages:
    served = Served.at("127.0.0.1", 8000)
    ctx = new_context(settings=Settings(data=tmp_path), served=served, token=TOKEN, url="http://127.0.0.1:8000")

    async def no_phones() -> None:
        return None

    return Pages(ctx, host="127.0.0.1", port=8000, url="http://127.0.0.1:8000/", data_dir=tmp_path, browser=None,
                 surfaces=lambda app: None, phone_on=no_phones)


@pytest.fixture
async def stranger(pages: Pages) -> AsyncIterator[httpx.AsyncClient]:
    """The light app as its server runs it: its lifespan opens the engine (httpx's transport runs no
    lifespan, and without it each gate held the first request its full 30 s for an engine never opened)."""
    app = light_app(pages.ctx, pages, None)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
            yield client


async def test_without_the_token_every_route_and_the_window_are_refused_and_no_page_opens(stranger, pages):
    assert (await stranger.get("/api/runs")).status_code == 401
    assert (await stranger.post("/api/runs", json={"name": "x"})).status_code == 401
    assert (await stranger.post(FOCUS_PATH, json={})).status_code == 401
    wrong = {"Authorization": "Bearer not-the-token-at-all"}
    assert (await stranger.get("/api/runs", headers=wrong)).status_code == 401
    page = await stranger.get("/", follow_redirects=False)
    assert page.status_code in (302, 303, 307) and page.headers["location"].startswith("/login")
    assert (await stranger.get("/login")).status_code == 200  # the login form, from the light app itself
    assert pages.app is None  # nothing a stranger sends opens the pages (nor imports NiceGUI)


async def test_another_host_or_origin_is_refused_before_the_token_is_looked_at(stranger, pages):
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert (await stranger.get("/api/health", headers={"Host": "evil.example"})).status_code == 421
    other = await stranger.post("/api/runs", json={"name": "x"}, headers={**bearer, "Origin": "http://evil.example"})
    assert other.status_code == 403
    cookie = await stranger.post(FOCUS_PATH, json={}, headers={"Origin": "http://evil.example",
                                                              "Cookie": "seqdesk_session=whatever"})
    assert cookie.status_code in (401, 403)
    assert pages.app is None


async def test_the_collector_is_on_again_once_the_app_has_started(pages):
    """The app started in the background starts with the garbage collector off
    (`gui.second_launch.START_BACKGROUND_APP`): it is on again once the engine is open."""
    gc.disable()
    try:
        app = light_app(pages.ctx, pages, None)
        async with app.router.lifespan_context(app):
            await pages.ctx.wait_open()
            assert gc.isenabled()
    finally:
        gc.enable()
