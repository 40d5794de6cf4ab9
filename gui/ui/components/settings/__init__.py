"""The settings page's parts: approval rules and MCP servers."""
