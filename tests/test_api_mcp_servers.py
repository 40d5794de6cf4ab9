"""`GET /api/mcp/servers[/{name}]` and `PATCH /api/mcp/servers/{name}` (a server's sign-in client),
behind the app's gates, on a real settings file and secret file in a temporary folder."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.mcp_servers import McpAccess
from gui.api.notifications import DEVICE_SCOPE_KEY
from gui.api.request_gate import Served
from gui.mcp.config import JsonMcpSettings, McpServerConfig
from gui.mcp.oauth_client import client_secret
from gui.mcp.secrets import FileSecrets, key

SECRET = "s3cret-Value-42"


@pytest.fixture
async def store(tmp_path) -> JsonMcpSettings:
    store = JsonMcpSettings(tmp_path / "mcp-servers.json", FileSecrets(tmp_path / "mcp-secrets.json"))
    await store.save(McpServerConfig.model_validate({"name": "corp", "transport": "http",
                                                     "url": "https://corp.example/mcp",
                                                     "headers": {"X-Team": "blue-team-value"}}))
    await store.save(McpServerConfig(name="local", command="uvx", args=["mcp-server-time", "--key", "k-in-args"],
                                     env={"TOKEN": "t-9"}))
    return store


@pytest.fixture
async def changes() -> list[dict[str, object]]:
    return []


@pytest.fixture
def app(engine_slot, store, changes) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process(),
                 mcp=lambda: McpAccess(store, None, lambda _setting, **data: changes.append(data)))
    return app


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def test_the_list_shows_no_secret_and_says_whether_a_client_secret_is_kept(client, store):
    await store.save(McpServerConfig.model_validate({"name": "keyed", "transport": "http",
                                                     "url": "https://u:pw-in-url@keyed.example:8443/mcp?key=q-in-url"}))
    listed = await client.get("/api/mcp/servers")
    assert listed.status_code == 200
    by_name = {server["name"]: server for server in listed.json()}
    corp, local, keyed = by_name["corp"], by_name["local"], by_name["keyed"]
    assert corp == {"name": "corp", "transport": "http", "trusted": False, "enabled": True, "protocol": "auto",
                    "url": "https://corp.example/mcp", "headers": ["X-Team"], "oauth_client_id": None,
                    "oauth_client_secret_set": False}
    assert local["command"] == "uvx" and local["env"] == ["TOKEN"] and "oauth_client_id" not in local
    assert "blue-team-value" not in listed.text and "t-9" not in listed.text
    # what only Settings shows: a program's arguments, a web address's credentials and query
    assert "args" not in local and "k-in-args" not in listed.text
    assert keyed["url"] == "https://keyed.example:8443/mcp"
    assert "pw-in-url" not in listed.text and "q-in-url" not in listed.text


async def test_patch_sets_the_client_and_never_gives_the_secret_back(client, store, tmp_path, changes):
    store.secrets.set(key("corp", "oauth-client"), "{}")  # a kept registration and tokens: forgotten
    store.secrets.set(key("corp", "oauth-tokens"), "{}")
    answer = await client.patch("/api/mcp/servers/corp",
                                json={"oauth_client_id": " console-id ", "oauth_client_secret": SECRET})
    assert answer.status_code == 200, answer.text
    assert answer.json()["oauth_client_id"] == "console-id" and answer.json()["oauth_client_secret_set"] is True
    assert "oauth_client_secret" not in answer.json() and SECRET not in answer.text
    got = await client.get("/api/mcp/servers/corp")
    assert got.json()["oauth_client_secret_set"] is True and SECRET not in got.text
    assert SECRET not in (await client.get("/api/mcp/servers")).text
    assert client_secret(store.secrets, "corp") == SECRET
    assert SECRET not in (tmp_path / "mcp-servers.json").read_text()
    assert json.loads((tmp_path / "mcp-servers.json").read_text())["servers"][0]["oauth_client_id"] == "console-id"
    assert store.secrets.get(key("corp", "oauth-client")) is None
    assert store.secrets.get(key("corp", "oauth-tokens")) is None
    assert changes == [{"client": "corp"}]

    same = await client.patch("/api/mcp/servers/corp", json={"oauth_client_id": "console-id"})
    assert same.status_code == 200 and same.json()["oauth_client_secret_set"] is True  # left out: kept
    assert changes == [{"client": "corp"}]  # nothing changed, nothing said

    cleared = await client.patch("/api/mcp/servers/corp", json={"oauth_client_secret": None})
    assert cleared.json() == got.json() | {"oauth_client_secret_set": False}
    assert client_secret(store.secrets, "corp") is None
    await client.patch("/api/mcp/servers/corp", json={"oauth_client_secret": SECRET})
    gone = await client.patch("/api/mcp/servers/corp", json={"oauth_client_id": None})
    assert gone.json()["oauth_client_id"] is None and gone.json()["oauth_client_secret_set"] is False
    assert client_secret(store.secrets, "corp") is None  # no Client ID: no secret kept either


@pytest.mark.parametrize("field", ["oauth_client_id", "oauth_client_secret"])
@pytest.mark.parametrize(("value", "says"), [("  ", "it is empty"), ("x" * 513, "longer than 512 characters"),
                                             ("a\nb", "control character"), ("a\x00b", "control character"),
                                             (12, "must be text")])
async def test_a_value_that_cannot_be_used_is_422_naming_the_field(client, store, field, value, says):
    body = {"oauth_client_id": "console-id", field: value}
    answer = await client.patch("/api/mcp/servers/corp", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith(field) and says in answer.json()["detail"]
    (corp, _local) = await store.list()
    assert corp.oauth_client_id is None and client_secret(store.secrets, "corp") is None  # nothing kept


@pytest.mark.parametrize(("name", "body", "status", "says"), [
    ("corp", {"url": "https://evil.example/mcp"}, 422, "url: not a field that can be changed here"),
    ("corp", {"oauth_client_secret": SECRET}, 422, "oauth_client_secret: a Client secret needs the oauth_client_id"),
    ("local", {"oauth_client_id": "x"}, 422, "oauth_client_id: local is a program on this computer"),
    ("nobody", {"oauth_client_id": "x"}, 404, "there is no MCP server named 'nobody'"),
    ("corp", ["oauth_client_id"], 422, "the body must be"),
])
async def test_a_request_that_cannot_be_done_says_why(client, name, body, status, says):
    answer = await client.patch(f"/api/mcp/servers/{name}", json=body)
    assert answer.status_code == status and says in answer.json()["detail"], answer.text


async def test_a_phone_may_read_but_not_change_them(app, store):
    async def as_phone(scope, receive, send):
        scope[DEVICE_SCOPE_KEY] = "phone-1"
        await app(scope, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=as_phone), base_url="http://test") as phone:
        answer = await phone.patch("/api/mcp/servers/corp", json={"oauth_client_id": "x"})
        assert answer.status_code == 403 and "on the computer" in answer.json()["detail"]
        assert (await phone.get("/api/mcp/servers/corp")).json()["oauth_client_id"] is None


async def test_another_site_cannot_change_them(app, store):
    """The request gate stands in front of these routes too: a page of another site is refused."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        answer = await c.patch("/api/mcp/servers/corp", json={"oauth_client_id": "x"},
                               headers={"Origin": "https://evil.example"})
        assert answer.status_code == 403
    assert (await store.list())[0].oauth_client_id is None
