"""Secrets of MCP servers (header values, sign-in tokens): in the keyring when one is usable, else in a
private file; never in `mcp-servers.json`, and a file from before that had them is cleaned up
without losing one.

The keyring tests give the real `keyring` package a backend of their own (a dict), so the code path
is the one a desktop's keyring takes; this machine has none, which the detection must see.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import PasswordDeleteError
from pydantic import ValidationError

from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig
from gui.mcp.secrets import FileSecrets, KeyringSecrets, LazySecrets, SecretStoreError, key, usable_keyring


class DictKeyring(KeyringBackend):
    priority = 5  # type: ignore[assignment]

    def __init__(self, refuse: bool = False) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}
        self.refuse = refuse

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.refuse:
            raise keyring.errors.PasswordSetError("the keyring is locked")
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.items.pop((service, username), None) is None:
            raise PasswordDeleteError("not there")


@pytest.fixture
def use_keyring() -> Iterator[Any]:
    before = keyring.get_keyring()

    def _use(backend: KeyringBackend) -> KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield _use
    keyring.set_keyring(before)


def http(name: str = "api", **headers: str) -> McpServerConfig:
    return McpServerConfig(name=name, transport="http", url="https://example.invalid/mcp", headers=headers)


def open_secret_store(folder) -> LazySecrets:
    from gui.mcp.secrets import open_secret_store as opened

    store = opened(folder)
    assert isinstance(store, LazySecrets)  # decided on first use, not when the app starts
    return store


def test_without_a_keyring_daemon_the_secrets_go_to_a_private_file(use_keyring, tmp_path):
    use_keyring(fail.Keyring())
    assert usable_keyring() is None
    assert isinstance(open_secret_store(tmp_path).open(), FileSecrets)


def test_a_working_keyring_is_used(use_keyring, tmp_path):
    backend = use_keyring(DictKeyring())
    assert usable_keyring() is backend
    store = open_secret_store(tmp_path)
    assert isinstance(store.open(), KeyringSecrets) and store.where == "in the system keyring"
    assert store.get("api/headers") is None and not (tmp_path / "mcp-secrets.id").exists()
    store.set("api/headers", "v")
    assert store.get("api/headers") == "v"
    (service, _), = backend.items
    assert service.startswith("SeqDesk MCP ")  # the folder's own id: two data folders never share
    other = open_secret_store(tmp_path / "other")
    assert other.get("api/headers") is None


async def test_header_values_go_to_the_keyring_and_only_their_names_to_the_file(use_keyring, tmp_path):
    backend = use_keyring(DictKeyring())
    store = JsonMcpSettings.in_folder(tmp_path)
    await store.save(http(Authorization="Bearer s3cret-value", **{"X-Team": "blue"}))
    text = (tmp_path / "mcp-servers.json").read_text(encoding="utf-8")
    assert "s3cret-value" not in text and "blue" not in text
    assert json.loads(text)["servers"][0]["headers"] == ["Authorization", "X-Team"]
    assert not (tmp_path / "mcp-secrets.json").exists()
    assert any("s3cret-value" in v for v in backend.items.values())
    (config,) = await JsonMcpSettings.in_folder(tmp_path).list()
    assert config.header_values() == {"Authorization": "Bearer s3cret-value", "X-Team": "blue"}
    assert "s3cret-value" not in repr(config) and "s3cret-value" not in json.dumps(config.model_dump(mode="json"))
    assert await store.delete("api") is True
    assert backend.items == {}


async def test_without_a_keyring_header_values_are_in_a_file_only_its_owner_reads(tmp_path):
    store = JsonMcpSettings.in_folder(tmp_path, FileSecrets(tmp_path / "mcp-secrets.json"))
    await store.save(http(**{"X-Api-Key": "k-1"}))
    assert "k-1" not in (tmp_path / "mcp-servers.json").read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(tmp_path / "mcp-secrets.json").st_mode) == 0o600
    assert (await store.list())[0].header_values() == {"X-Api-Key": "k-1"}


OLD_FILE = {"servers": [
    {"name": "api", "transport": "http", "url": "https://example.invalid/mcp",
     "headers": {"Authorization": "Bearer old-plain-token"}},
    {"name": "time", "transport": "stdio", "command": "uvx", "args": ["mcp-server-time"], "headers": {}},
]}


@pytest.mark.parametrize("where", ["keyring", "file"])
async def test_plain_header_values_of_an_old_file_move_out_of_it_and_none_is_lost(use_keyring, tmp_path, where):
    backend = use_keyring(DictKeyring()) if where == "keyring" else use_keyring(fail.Keyring())
    path = tmp_path / "mcp-servers.json"
    path.write_text(json.dumps(OLD_FILE), encoding="utf-8")
    configs = await JsonMcpSettings(path).list()
    assert configs[0].header_values() == {"Authorization": "Bearer old-plain-token"}
    assert "old-plain-token" not in path.read_text(encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["servers"][0]["headers"] == ["Authorization"]
    if where == "keyring":
        assert any("old-plain-token" in v for v in backend.items.values())
    else:
        assert stat.S_IMODE(os.stat(tmp_path / "mcp-secrets.json").st_mode) == 0o600
    assert await JsonMcpSettings(path).list() == configs  # read again (a new process): the same values


async def test_when_the_keyring_refuses_the_old_file_keeps_its_values(use_keyring, tmp_path, caplog):
    use_keyring(DictKeyring(refuse=True))
    path = tmp_path / "mcp-servers.json"
    path.write_text(json.dumps(OLD_FILE), encoding="utf-8")
    configs = await JsonMcpSettings(path).list()
    assert configs[0].header_values() == {"Authorization": "Bearer old-plain-token"}  # still usable
    assert json.loads(path.read_text(encoding="utf-8")) == OLD_FILE  # and not lost
    assert "stay there for now" in caplog.text
    with pytest.raises(McpConfigError, match="cannot be kept"):  # a new value is refused in words
        await JsonMcpSettings(path).save(http("new", **{"X-Key": "v"}))


def test_a_secrets_file_others_could_read_is_made_private(tmp_path):
    path = tmp_path / "mcp-secrets.json"
    path.write_text('{"api/headers": "{}"}', encoding="utf-8")
    os.chmod(path, 0o644)
    assert FileSecrets(path).get("api/headers") == "{}"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_damaged_secrets_file_is_said_not_overwritten(tmp_path):
    path = tmp_path / "mcp-secrets.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SecretStoreError, match="damaged"):
        FileSecrets(path).set(key("api", "headers"), "{}")
    assert path.read_text(encoding="utf-8") == "{not json"


@pytest.mark.parametrize(("headers", "words"), [
    ({"Host": "evil"}, "set by the connection itself"),
    ({"X-Key": "a\r\nX-Other: b"}, "line break"),
    ({"bad name": "v"}, "is not a header name"),
    ({"X-Key": "a", "x-key": "b"}, "given twice"),
])
def test_headers_that_would_break_the_request_are_refused_in_words(headers, words):
    with pytest.raises(ValidationError, match=words):
        http(**headers)
