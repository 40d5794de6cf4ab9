"""A server's prompts as text templates: each is a step `<server>.prompt/<name>` whose result, the
prompt's text with its arguments filled in by the server, feeds a later tool.

`/` is not allowed in an MCP tool name, so a prompt's step never shares a name with a tool of the same
server. Its arguments are the prompt's (all text). A prompt asks first, on every server, unless a
rule the person made allows it: its arguments (perhaps what an earlier step read) go to the server,
and a prompt carries no annotation saying what it does (`mcp-server-fetch`'s prompt fetches a web
page), so trusting a server's read-only claims says nothing about its prompts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

from mcp import Client, MCPError
from mcp_types import CONNECTION_CLOSED, EmbeddedResource, GetPromptResult, Prompt, TextContent, TextResourceContents

from gui.core.errors import ToolArgumentError
from gui.core.sequences import SlotType
from gui.core.tools import JsonValue, Tool, ToolContext
from gui.mcp.config import McpServerConfig

log = logging.getLogger(__name__)
PROMPT_MARK = "prompt/"


async def list_prompts(client: Client, server: str) -> list[Prompt]:
    """Every prompt of the server, when it offers prompts; [] otherwise (or when listing fails)."""
    caps = client.server_capabilities
    if caps.prompts is None:
        return []
    prompts: list[Prompt] = []
    cursor: str | None = None
    try:
        for _ in range(100):
            page = await client.list_prompts(cursor=cursor)
            prompts.extend(page.prompts)
            cursor = page.next_cursor
            if cursor is None:
                break
    except MCPError as exc:
        if exc.code == CONNECTION_CLOSED:  # the server went away: not "no prompts", the connection is over
            raise
        log.info("MCP server %s did not list its prompts: %s", server, exc.message)
        return []
    return prompts


class PromptServer(Protocol):
    """What a prompt's step needs of the connection that listed it (`gui.mcp.client.McpConnection`)."""

    config: McpServerConfig

    async def get_prompt(self, name: str, args: dict[str, str]) -> GetPromptResult: ...


class McpPromptTool(Tool):
    kind = "prompt"

    def __init__(self, connection: PromptServer, prompt: Prompt) -> None:
        self.connection = connection
        self.server = connection.config.name
        self.prompt_name = prompt.name
        self.name = f"{self.server}.{PROMPT_MARK}{prompt.name}"
        self._title = prompt.title or prompt.name
        self.description = prompt.description or f"the text template '{prompt.name}' of the server '{self.server}'"
        self.concurrency_safe = True
        self.approval = "tool"  # whoever the server is: a prompt claims nothing about what it does
        args = prompt.arguments or []
        self._required = [a.name for a in args if a.required]
        properties: dict[str, Any] = {}
        for arg in args:
            prop: dict[str, Any] = {"type": "string", "title": arg.title or arg.name}
            if arg.description:
                prop["description"] = arg.description
            properties[arg.name] = prop
        self._schema: dict[str, Any] = {"type": "object", "title": self._title, "properties": properties,
                                        "required": self._required, "additionalProperties": False}

    @property
    def title(self) -> str:
        return self._title

    def input_schema(self) -> dict[str, Any]:
        return self._schema

    def result_type_for(self, args: dict[str, JsonValue], ins: Mapping[str, SlotType]) -> SlotType | None:
        return SlotType.STRING

    def validate_args(self, args: dict[str, JsonValue]) -> dict[str, JsonValue]:
        if not isinstance(args, dict):
            raise ToolArgumentError(self.name, [("", "the arguments must be an object")])
        problems = [(k, "not an argument of this template") for k in args if k not in self._schema["properties"]]
        problems += [(k, "is required") for k in self._required if k not in args]
        problems += [(k, "must be text") for k, v in args.items() if k in self._schema["properties"]
                     and not isinstance(v, str)]
        if problems:
            raise ToolArgumentError(self.name, problems)
        return args

    async def call(self, args: dict[str, JsonValue], ctx: ToolContext) -> JsonValue:
        result = await self.connection.get_prompt(self.prompt_name, {k: str(v) for k, v in args.items()})
        return prompt_text(result)


def prompt_text(result: GetPromptResult) -> str:
    """The prompt's messages as one text, each message's text in order."""
    texts: list[str] = []
    for message in result.messages:
        content = message.content
        if isinstance(content, TextContent):
            texts.append(content.text)
        elif isinstance(content, EmbeddedResource) and isinstance(content.resource, TextResourceContents):
            texts.append(content.resource.text)
    return "\n\n".join(texts)
