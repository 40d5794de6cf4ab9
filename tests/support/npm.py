"""The npm packages the MCP interoperability tests run, named by environment variables (`.ci/mcp-npm.sh`
installs them outside the checkout and sets them): the official conformance suite (MCP_CONFORMANCE_CLI,
the command that starts it under Node 22), the TypeScript SDK's server-everything (MCP_SERVER_EVERYTHING,
its dist/index.js) and the TypeScript SDK itself (MCP_TS_SDK, the folder whose node_modules holds it).

Each is a session fixture. Without its package (or without `node` on PATH) the tests that need it skip
with the reason, except under CI=true, where they fail: CI must run them.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest


def missing(reason: str) -> None:
    """Skip for want of an npm package; under CI=true, fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"the MCP interoperability tests need their npm packages under CI (.ci/run installs them): "
                    f"{reason}")
    pytest.skip(reason)


def node() -> str:
    """The `node` on PATH."""
    found = shutil.which("node")
    if found is None:
        missing("node is not on PATH")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def conformance_cli() -> list[str]:
    """The command that starts the conformance suite (`@modelcontextprotocol/conformance`), as words."""
    words = shlex.split(os.environ.get("MCP_CONFORMANCE_CLI", ""))
    if not words:
        missing("MCP_CONFORMANCE_CLI (the conformance suite's command, under Node 22) is not set")
    if shutil.which(words[0]) is None:
        missing(f"MCP_CONFORMANCE_CLI starts {words[0]}, which is not there")
    return words


@pytest.fixture(scope="session")
def server_everything() -> tuple[str, str]:
    """`node` and server-everything's dist/index.js (`@modelcontextprotocol/server-everything`)."""
    script = os.environ.get("MCP_SERVER_EVERYTHING", "")
    if not script:
        missing("MCP_SERVER_EVERYTHING (server-everything's dist/index.js) is not set")
    if not Path(script).is_file():
        missing(f"MCP_SERVER_EVERYTHING names {script}, which is not a file")
    return node(), script


@pytest.fixture(scope="session")
def ts_sdk() -> tuple[str, Path]:
    """`node` and the node_modules folder that holds the TypeScript SDK (`@modelcontextprotocol/sdk`)."""
    folder = os.environ.get("MCP_TS_SDK", "")
    if not folder:
        missing("MCP_TS_SDK (a folder whose node_modules holds @modelcontextprotocol/sdk) is not set")
    modules = Path(folder) / "node_modules"
    if not (modules / "@modelcontextprotocol" / "sdk").is_dir():
        missing(f"MCP_TS_SDK names {folder}, whose node_modules holds no @modelcontextprotocol/sdk")
    return node(), modules
