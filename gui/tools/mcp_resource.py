"""`mcp_resource`: read a resource of a connected MCP server by its URI, after the person approves it.

Reading changes nothing, so it runs beside other tools; but it asks first, every time unless a rule
allows it, whoever the server is. Think of what an attacker could do with it: the URI is sent to the
server, so a URI built from what an earlier step read (`note://x?$args.secret`) carries that data off
the machine; and a server may give back a file of this machine (a filesystem server), which a later
step could send away. The approval shows the server and the whole URI, in bold. It reads only
through a server the person configured (it never connects anywhere itself), and only by URI: the
server decides what a URI means, as it does for its own tools.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from gui.core.errors import ToolError
from gui.core.tools import ApprovalSummary, ModelTool, ResourceReader, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, invalid, parse_args

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MAX_URI = 4000


class McpResourceArgs(ToolArgs):
    """Read a resource of an MCP server."""

    model_config = ConfigDict(title=N_("Read from an MCP server"))

    server: str = Field(min_length=1, max_length=200, title=N_("Server"),
                        description=N_("The name of the MCP server, as it is listed in Settings, for example git."))
    uri: str = Field(min_length=1, max_length=MAX_URI, title=N_("Resource address"),
                     description=N_("The address of the resource on that server, for example file:///notes.txt "
                                 "or note://hello."))

    @field_validator("uri")
    @classmethod
    def _an_address(cls, value: str) -> str:
        value = value.strip()
        if not _SCHEME.match(value):
            raise invalid(N_("the address must start with a scheme such as file:// or note://"))
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise invalid(N_("the address must not contain control characters"))
        return value


class McpResource(ModelTool):
    name = "mcp_resource"
    description = N_("Reads something an MCP server offers (a file, a note, a record) by its address, and gives "
                   "back its text. It asks you before each read, unless a rule you made allows it.")
    concurrency_safe = True
    approval = "tool"
    Args = McpResourceArgs

    def __init__(self, reader: ResourceReader | None = None) -> None:
        self.reader = reader

    def attach(self, reader: ResourceReader) -> None:
        """Read through `reader` (the app's MCP servers), set by the composition root."""
        self.reader = reader

    def approval_summary(self, args: dict[str, Any]) -> ApprovalSummary:
        uri, server = str(args.get("uri", "")), str(args.get("server", ""))
        return ApprovalSummary.of(N_("Send the address {uri} to the MCP server {server} and read what it gives back"),
                                  highlight=uri, uri=uri, server=server)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        a = parse_args(self, McpResourceArgs, args)
        if self.reader is None:
            raise ToolError(N_("no MCP servers are connected here, so no resource can be read"))
        known = self.reader.server_names()
        if a.server not in known:
            if not known:
                raise ToolError(N_("there is no MCP server named '{server}' (the servers: none is set up)").format(
                    server=a.server))
            raise ToolError(N_("there is no MCP server named '{server}' (the servers: {servers})").format(
                server=a.server, servers=", ".join(sorted(known))))
        return await self.reader.read_resource(a.server, a.uri)
