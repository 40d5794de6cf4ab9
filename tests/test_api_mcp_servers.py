"""The MCP servers over the API (`/api/mcp/servers`), through the door, behind the app's gates, on a
real settings file and secret file in a temporary folder: the list, adding (kept off and untrusted
until a person turns it on), changing, removing, signing in and trying again; a paired phone and a
page of another site refused every write."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from gui.api import register_api
from gui.api.notifications import DEVICE_SCOPE_KEY
from gui.api.request_gate import Served
from gui.core.door import Engine
from gui.core.events import Event, SettingsChanged
from gui.mcp.config import JsonMcpSettings, McpServerConfig
from gui.mcp.managed import ManagedServers
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
def engine(current_engine: Engine, store: JsonMcpSettings) -> Engine:
    """The engine keeping its servers in `store` (connecting none: there is no manager here)."""
    current_engine.mcp_servers.attach(ManagedServers(store))
    return current_engine


@pytest.fixture
def changes(engine: Engine) -> list[dict[str, object]]:
    """What the door announced of the servers (`settings.changed`, "mcp_servers")."""
    said: list[dict[str, object]] = []

    def heard(event: Event) -> None:
        if isinstance(event, SettingsChanged) and event.setting == "mcp_servers":
            said.append(event.details)

    engine.subscribe(heard)
    return said


@pytest.fixture
def app(engine: Engine, engine_slot) -> FastAPI:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
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
    assert corp == {"name": "corp", "transport": "http", "trusted": False, "side_by_side": False, "enabled": True,
                    "protocol": "auto",
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


ADD = {"name": "tool", "command": "uvx", "args": ["mcp-server-time"], "env": {"API_KEY": "env-secret-7"}}
WRITES: list[tuple[str, str, Any]] = [
    ("POST", "/api/mcp/servers", ADD),
    ("PATCH", "/api/mcp/servers/corp", {"protocol": "legacy"}),
    ("PATCH", "/api/mcp/servers/corp", {"oauth_client_id": "x"}),
    ("DELETE", "/api/mcp/servers/corp", None),
    ("POST", "/api/mcp/servers/corp/sign-in", {}),
    ("POST", "/api/mcp/servers/corp/retry", {}),
]


async def unchanged(store: JsonMcpSettings) -> None:
    corp, local = await store.list()
    assert (corp.name, corp.protocol, corp.oauth_client_id, local.name) == ("corp", "auto", None, "local")


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
async def test_a_paired_phone_is_refused_every_write(app, store, changes, method, path, body):
    async def as_phone(scope, receive, send):
        scope[DEVICE_SCOPE_KEY] = "phone-1"
        await app(scope, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=as_phone), base_url="http://test") as phone:
        answer = await phone.request(method, path, json=body)
        assert answer.status_code == 403, answer.text
        assert answer.json()["detail"] == "MCP servers are changed on the computer SeqDesk runs on"
    await unchanged(store)
    assert changes == []


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
async def test_a_page_of_another_site_is_refused_every_write(client, store, changes, method, path, body):
    answer = await client.request(method, path, json=body, headers={"Origin": "https://evil.example"})
    assert answer.status_code == 403 and "another site" in answer.json()["detail"]
    await unchanged(store)
    assert changes == []


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/mcp/servers"), ("POST", "/api/mcp/servers/corp/retry"),
                                              ("POST", "/api/mcp/servers/corp/sign-in")])
async def test_a_write_needs_a_json_body_which_no_form_can_send(client, store, method, path):
    form = await client.request(method, path, content=b"name=tool&command=uvx",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    bare = await client.request(method, path)
    assert bare.status_code == 400 and "empty" in bare.json()["detail"]
    await unchanged(store)


async def test_a_server_added_through_the_api_is_kept_off_and_untrusted(client, store, changes):
    answer = await client.post("/api/mcp/servers", json=ADD)
    assert answer.status_code == 201, answer.text
    assert answer.json() == {"name": "tool", "transport": "stdio", "trusted": False, "side_by_side": False,
                             "enabled": False,
                             "protocol": "auto", "command": "uvx", "env": ["API_KEY"]}
    assert "env-secret-7" not in answer.text
    (kept,) = [c for c in await store.list() if c.name == "tool"]
    assert (kept.enabled, kept.trusted, kept.args) == (False, False, ["mcp-server-time"])
    assert changes == [{"added": "tool"}]

    for turned_on in ({"enabled": True}, {"trusted": True}):
        refused = await client.post("/api/mcp/servers", json={**ADD, "name": "other", **turned_on})
        assert refused.status_code == 403 and "is for a person, in SeqDesk's Settings" in refused.json()["detail"]
        again = await client.patch("/api/mcp/servers/tool", json=turned_on)
        assert again.status_code == 403 and "kept off and untrusted" in again.json()["detail"]
    assert [c.name for c in await store.list()] == ["corp", "local", "tool"]
    (kept,) = [c for c in await store.list() if c.name == "tool"]
    assert (kept.enabled, kept.trusted) == (False, False)
    off = await client.patch("/api/mcp/servers/corp", json={"enabled": False, "trusted": False})
    assert off.status_code == 200 and off.json()["enabled"] is False  # turning off is anyone's to ask


@pytest.mark.parametrize(("body", "status", "says"), [
    ({**ADD, "name": "corp"}, 409, "A server named “corp” is already there"),
    ({**ADD, "name": "Bad Name"}, 422, "name: use 1 to 40 of a-z, 0-9, _ and -"),
    ({"name": "tool"}, 422, "a stdio server needs a command to start it"),
    ({"name": "web", "transport": "http", "url": "https://web.example/mcp", "oauth_client_secret": SECRET},
     422, "A Client secret needs the Client ID it belongs to."),
    ({**ADD, "shell": "sh"}, 422, "shell: Extra inputs are not permitted"),
    (["tool"], 422, "the body must be"),
])
async def test_an_add_that_cannot_be_done_says_why_and_keeps_nothing(client, store, body, status, says):
    answer = await client.post("/api/mcp/servers", json=body)
    assert answer.status_code == status and says in answer.json()["detail"], answer.text
    assert SECRET not in answer.text
    await unchanged(store)
    assert len(await store.list()) == 2


async def test_an_http_server_added_keeps_its_secrets_out_of_every_answer_and_the_settings_file(client, store,
                                                                                               tmp_path):
    body = {"name": "web", "transport": "http", "url": "https://web.example/mcp?key=q-in-url",
            "headers": {"X-Api-Key": "h-secret-1"}, "oauth_client_id": "console-id", "oauth_client_secret": SECRET}
    answer = await client.post("/api/mcp/servers", json=body)
    assert answer.status_code == 201, answer.text
    assert answer.json()["headers"] == ["X-Api-Key"] and answer.json()["oauth_client_secret_set"] is True
    assert answer.json()["url"] == "https://web.example/mcp"
    listed = await client.get("/api/mcp/servers")
    for text in (answer.text, listed.text, (tmp_path / "mcp-servers.json").read_text()):
        assert "h-secret-1" not in text and SECRET not in text
    assert client_secret(store.secrets, "web") == SECRET
    (web,) = [c for c in await store.list() if c.name == "web"]
    assert web.header_values() == {"X-Api-Key": "h-secret-1"}


async def test_headers_and_the_protocol_change_and_each_change_is_announced(client, store, changes):
    answer = await client.patch("/api/mcp/servers/corp", json={"headers": {"X-Team": None, "X-Api-Key": "k-2"},
                                                                "protocol": "legacy"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["headers"] == ["X-Api-Key", "X-Team"] and answer.json()["protocol"] == "legacy"
    assert "k-2" not in answer.text and "blue-team-value" not in answer.text
    (corp, _local) = await store.list()
    assert corp.header_values() == {"X-Team": "blue-team-value", "X-Api-Key": "k-2"}  # null kept the value
    assert changes == [{"headers": "corp"}, {"protocol": "corp", "value": "legacy"}]

    missing = await client.patch("/api/mcp/servers/corp", json={"headers": {"X-New": None}})
    assert missing.status_code == 422 and "X-New has no value yet" in missing.json()["detail"]
    assert len(changes) == 2


async def test_removing_a_server_forgets_it_and_its_secrets(client, store, changes):
    store.secrets.set(key("corp", "oauth-tokens"), "{}")
    answer = await client.delete("/api/mcp/servers/corp")
    assert answer.status_code == 204
    assert [c.name for c in await store.list()] == ["local"]
    assert store.secrets.get(key("corp", "oauth-tokens")) is None and store.secrets.get(key("corp", "headers")) is None
    again = await client.delete("/api/mcp/servers/corp")
    assert again.status_code == 404 and "there is no MCP server named 'corp'" in again.json()["detail"]
    assert changes == [{"removed": "corp"}]


async def test_sign_in_and_retry_say_what_they_can(client, store):
    local = await client.post("/api/mcp/servers/local/sign-in", json={})
    assert local.status_code == 502 and "only a server at a web address can be signed in to" in local.json()["detail"]
    elsewhere = await client.post("/api/mcp/servers/corp/sign-in", json={"callback": "https://evil.example/cb"})
    assert elsewhere.status_code == 422 and "http://test/oauth/callback" in elsewhere.json()["detail"]
    nobody = await client.post("/api/mcp/servers/nobody/sign-in", json={})
    assert nobody.status_code == 404
    retried = await client.post("/api/mcp/servers/local/retry", json={})
    assert retried.status_code == 200 and retried.json() == {"retried": False}  # not connecting in this engine
    assert (await client.post("/api/mcp/servers/nobody/retry", json={})).status_code == 404
