"""What a surface shows of the tools: every tool the registry knows, with the state of its server.

`tool_listing` is the one function behind `seq_tools` (MCP), `seqdesk tools` (CLI) and `GET /api/tools`:
each tool's name, title, description, input schema, result type, whether it asks first, and, for a
tool of an MCP server, that server's state. Servers that are configured but not connected are listed
too (their tools are not in the registry while they are down), so an agent reads why a tool it
expected is missing instead of guessing another name. `nearest_names` suggests known names for an
unknown one (`git.git_status` → `git.status`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from gui.core.tools.registry import Registry, Tool


class ServerInfo(BaseModel):
    """One configured MCP server as the tool listing shows it."""

    model_config = ConfigDict(frozen=True)

    name: str
    status: str
    last_error: str | None = None
    protocol: str | None = None
    tools: int = 0


class ToolInfo(BaseModel):
    """One tool as surfaces show it (and the editor draws its argument form from)."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    result_type: str | None = None  # the JSON type it gives back; None: known only when it runs
    output_schema: dict[str, Any] | None = None
    asks_first: bool
    approval: str
    concurrency_safe: bool
    source: Literal["built-in", "mcp"]
    server: str | None = None
    server_state: str | None = None  # its server's status ("connected"), for a tool of an MCP server
    kind: Literal["tool", "prompt"] = "tool"  # "prompt": an MCP server's text template
    shell_text_args: list[str] = []  # arguments a shell reads as a command line (inputs go in quoted)


class ToolListing(BaseModel):
    model_config = ConfigDict(frozen=True)

    tools: list[ToolInfo]
    servers: list[ServerInfo] = []

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def matching(self, text: str) -> ToolListing:
        """Only the tools whose name, title, description or server contains `text` (any case)."""
        needle = text.strip().lower()
        tools = [t for t in self.tools
                 if needle in " ".join((t.name, t.title, t.description, t.server or "")).lower()]
        return ToolListing(tools=tools, servers=self.servers)


ServerStates = Callable[[], Iterable[ServerInfo]]


def tool_info(tool: Tool, states: dict[str, ServerInfo]) -> ToolInfo:
    server = tool.server
    try:
        kind = tool.result_type_for({}, {})
    except Exception:  # a tool that needs its arguments to say: unknown until it runs
        kind = None
    state = states.get(server) if server is not None else None
    return ToolInfo(
        name=tool.name, title=tool.title, description=tool.description, input_schema=tool.input_schema(),
        result_type=kind.value if kind is not None else None, output_schema=tool.output_schema(),
        asks_first=tool.approval != "none", approval=tool.approval, concurrency_safe=tool.concurrency_safe,
        source="mcp" if server is not None else "built-in", server=server,
        server_state=(state.status if state is not None else ("connected" if server is not None else None)),
        kind="prompt" if getattr(tool, "kind", None) == "prompt" else "tool",
        shell_text_args=sorted(tool.shell_text_args),
    )


def tool_listing(registry: Registry, servers: ServerStates | None = None) -> ToolListing:
    """Every tool of `registry`, sorted by name, and every configured server (`servers`)."""
    known = list(servers()) if servers is not None else []
    states = {s.name: s for s in known}
    return ToolListing(tools=[tool_info(t, states) for t in registry], servers=sorted(known, key=lambda s: s.name))



def short_list(listing: ToolListing, limit: int = 40) -> str:
    """The tools available now, one line each, for the end of `seq_help`."""
    lines = ["", "TOOLS AVAILABLE NOW (seq_tools gives each one's inputs and result)", ""]
    for info in listing.tools[:limit]:
        asks = "needs approval" if info.asks_first else "no approval needed"
        lines.append(f"  {info.name:<28} {info.title if info.title != info.name else info.description[:60]}"
                     f" ({asks})")
    if len(listing.tools) > limit:
        lines.append(f"  … and {len(listing.tools) - limit} more: call seq_tools")
    for server in listing.servers:
        if server.status != "connected":
            why = f": {server.last_error}" if server.last_error else ""
            lines.append(f"  (the MCP server '{server.name}' is {server.status}{why}; its tools are not listed)")
    return "\n".join(lines) + "\n"
