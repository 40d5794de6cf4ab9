"""Fixtures for the MCP tests live in mcp_support (a plain module the tests can import by name)."""

from mcp_support import connect, engine, registry  # noqa: F401
