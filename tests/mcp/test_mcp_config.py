"""Server settings: what a valid server is, and the JSON file that keeps the list."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig, MemoryMcpSettings


def stdio(name: str = "time", **fields: object) -> McpServerConfig:
    return McpServerConfig.model_validate({"name": name, "command": "uvx", "args": ["mcp-server-time"], **fields})


def test_a_new_server_is_untrusted_and_enabled_by_default():
    config = stdio()
    assert config.trusted is False
    assert config.enabled is True
    assert config.describe() == "uvx mcp-server-time"


@pytest.mark.parametrize("name", ["Time", "my server", "a.b", "", "x" * 41, "tïme"])
def test_a_name_is_a_short_plain_identifier(name):
    with pytest.raises(ValidationError):
        stdio(name)


def test_a_stdio_server_needs_a_command_and_an_http_server_a_url():
    with pytest.raises(ValidationError, match="needs a command"):
        McpServerConfig(name="x", transport="stdio")
    with pytest.raises(ValidationError, match="needs a url"):
        McpServerConfig(name="x", transport="http", url="ftp://host")
    with pytest.raises(ValidationError, match="for stdio servers"):
        McpServerConfig(name="x", transport="http", url="http://127.0.0.1:1/mcp", command="uvx")
    http = McpServerConfig(name="x", transport="http", url="http://127.0.0.1:1/mcp", headers={"A": "b"})
    assert http.describe() == "http://127.0.0.1:1/mcp"


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    return MemoryMcpSettings() if request.param == "memory" else JsonMcpSettings.in_folder(tmp_path)


async def test_saved_servers_are_listed_by_name_replaced_by_name_and_deleted(store):
    await store.save(stdio("time"))
    await store.save(stdio("git", trusted=True))
    await store.save(stdio("time", enabled=False))
    assert [(c.name, c.enabled, c.trusted) for c in await store.list()] == [("git", True, True),
                                                                          ("time", False, False)]
    assert await store.delete("git") is True
    assert await store.delete("git") is False
    assert [c.name for c in await store.list()] == ["time"]


async def test_the_file_is_written_whole_and_leaves_no_temporary_file(tmp_path):
    store = JsonMcpSettings.in_folder(tmp_path)
    assert await store.list() == []
    await store.save(stdio("time", env={"TZ": "UTC"}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcp-servers.json"]
    data = json.loads((tmp_path / "mcp-servers.json").read_text(encoding="utf-8"))
    assert data["servers"][0]["env"] == {"TZ": "UTC"}
    assert await JsonMcpSettings(tmp_path / "mcp-servers.json").list() == [stdio("time", env={"TZ": "UTC"})]


@pytest.mark.parametrize("text", ["{not json", '["time"]', '{"servers": [{"name": "BAD"}]}'])
async def test_a_file_that_is_not_a_server_list_is_reported_not_overwritten(tmp_path, text):
    path = tmp_path / "mcp-servers.json"
    path.write_text(text, encoding="utf-8")
    store = JsonMcpSettings(path)
    with pytest.raises(McpConfigError):
        await store.list()
    with pytest.raises(McpConfigError):
        await store.save(stdio())
    assert path.read_text(encoding="utf-8") == text
