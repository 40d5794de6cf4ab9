"""Fixtures for the MCP tests live in mcp_support (a plain module the tests can import by name); those
naming the npm packages some of them run, in support.npm."""

from mcp_support import connect, engine, registry  # noqa: F401
from support.npm import conformance_cli, server_everything, ts_sdk  # noqa: F401
