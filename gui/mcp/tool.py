"""One tool of an MCP server as a SeqDesk `Tool`: named `<server>.<tool>`, checked by its JSON schema.

Safety comes from the server's own annotations only when the person trusts the server: a trusted
server's `readOnlyHint` tools run without asking and beside other tools, except those that say
`openWorldHint: true` (they reach outside the machine, as a fetch does, and can carry data away):
those ask unless the person allowed them (an approval rule). Everything else, and every tool of an
untrusted server, asks first (a tool approval showing the validated input) and runs alone.
The call itself goes through the `McpConnection` that listed the tool. A result's structured
content is the step's value; when a server wrapped a plain value as `{"result": …}` (the Python SDK
does this for every non-object return, and says so with an output schema holding only `result`),
the plain value is the step's value, so a tool that returns text fills a `string` slot. Images,
audio and resources in a result are kept (`gui.core.tools.media`), never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

import jsonschema
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp_types import Tool as RemoteTool

from gui.core.errors import ToolArgumentError, ToolError
from gui.core.sequences import SlotType
from gui.core.tools import MAX_MEDIA_CHARS, JsonValue, Tool, ToolContext, content_value, media_part
from gui.mcp.config import McpServerConfig

log = logging.getLogger(__name__)

_OBJECT = {"type": "object"}
MAX_RESULT_MEDIA = 3 * MAX_MEDIA_CHARS  # base64 characters of media kept from one answer


class ToolServer(Protocol):
    """What a tool needs of the connection that listed it (`gui.mcp.client.McpConnection`)."""

    config: McpServerConfig

    async def call_tool(self, remote_name: str, args: dict[str, Any], ctx: ToolContext) -> CallToolResult: ...


class McpTool(Tool):
    def __init__(self, connection: ToolServer, remote: RemoteTool, *, trusted: bool) -> None:
        self.connection = connection
        self.server = connection.config.name
        self.server_address = connection.config.address
        self.remote_name = remote.name
        self.name = f"{self.server}.{remote.name}"
        title = remote.title or (remote.annotations.title if remote.annotations else None)
        self._title = title or self.name
        text = remote.description or title
        self.description = text or f"the tool '{remote.name}' of the MCP server '{self.server}'"
        read_only = bool(remote.annotations is not None and remote.annotations.read_only_hint is True)
        open_world = bool(remote.annotations is not None and remote.annotations.open_world_hint is True)
        self.read_only_hint = read_only
        self.open_world_hint = open_world
        # A read-only tool that reaches outside the machine (a fetch) can still carry data away:
        # it asks even on a trusted server, unless the person allowed it (an approval rule).
        believed = trusted and read_only
        self.approval = "none" if believed and not open_world else "tool"
        # Beside other tools when it only reads (as its trusted server says), or when the person said
        # its server's steps may run side by side (each call its own: a host of a fan-out).
        self.concurrency_safe = believed or connection.config.side_by_side
        self._schema: dict[str, Any] = dict(remote.input_schema or _OBJECT)
        self._output_schema = dict(remote.output_schema) if isinstance(remote.output_schema, dict) else None
        self._validator = _validator(self.name, self._schema)
        self._wrapped = _wraps_result(remote.output_schema)
        self.result_type = _result_type(remote.output_schema, self._wrapped)

    def input_schema(self) -> dict[str, Any]:
        return self._schema

    def output_schema(self) -> dict[str, Any] | None:
        return self._output_schema

    @property
    def title(self) -> str:
        """The server's title for it ("Get the time"), else its name."""
        return self._title

    def result_type_for(self, args: dict[str, JsonValue], ins: Mapping[str, SlotType]) -> SlotType | None:
        """What its `outputSchema` promises (unknown without one: its value is then the text it sends,
        or an object when pictures, sounds or resources come with it; the validator says so at save)."""
        kind = self.result_type
        return SlotType(kind) if kind is not None and kind in SlotType._value2member_map_ else None

    def validate_args(self, args: dict[str, JsonValue]) -> dict[str, JsonValue]:
        if not isinstance(args, dict):
            raise ToolArgumentError(self.name, [("", "the arguments must be an object")])
        errors = sorted(self._validator.iter_errors(args), key=lambda e: list(e.absolute_path))
        if errors:
            raise ToolArgumentError(self.name, [(".".join(str(p) for p in e.absolute_path), e.message)
                                                for e in errors])
        return args

    async def call(self, args: dict[str, JsonValue], ctx: ToolContext) -> JsonValue:
        result = await self.connection.call_tool(self.remote_name, args, ctx)
        return result_value(self.name, result, wrapped=self._wrapped)


def _wraps_result(schema: dict[str, Any] | None) -> bool:
    if not isinstance(schema, dict):
        return False
    props = schema.get("properties")
    return isinstance(props, dict) and list(props) == ["result"] and schema.get("required") == ["result"]


_JSON_TYPES = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
               "array": "array", "object": "object"}


def _result_type(schema: dict[str, Any] | None, wrapped: bool) -> str | None:
    """The sequence type of the step's value, when the server says (its output schema); None when unknown."""
    if not isinstance(schema, dict):
        return None
    if not wrapped:
        return "object"
    inner = (schema.get("properties") or {}).get("result")
    kind = inner.get("type") if isinstance(inner, dict) else None
    return _JSON_TYPES.get(kind) if isinstance(kind, str) else None


def _validator(name: str, schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        # A server's broken schema must not make its tool unusable: the server checks again anyway.
        log.warning("the input schema of %s is not a valid JSON schema (%s); only 'object' is checked",
                    name, exc.message)
        return jsonschema.Draft202012Validator(_OBJECT)
    return cls(schema)


def result_value(name: str, result: CallToolResult, *, wrapped: bool = False) -> JsonValue:
    """Structured content as an object (unwrapped if `wrapped`); else the text blocks joined, or, when
    images, audio or resources came back too, `{"text", "content"}` keeping them (`gui.core.tools.media`).
    An error raises, with the server's text."""
    parts = keep_within(MAX_RESULT_MEDIA, [block_part(block) for block in result.content])
    if result.is_error:
        text = "\n".join(p.get("text") or "" for p in parts if p["type"] == "text")
        raise ToolError(f"{name}: {text or 'the tool reported an error without saying why'}")
    structured = result.structured_content
    if structured is not None:
        return structured["result"] if wrapped and list(structured) == ["result"] else structured
    return content_value(parts)


def keep_within(limit: int, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Media data past `limit` characters in all (many pictures in one answer) is dropped, saying why."""
    used = 0
    for part in parts:
        data = part.get("data")
        if isinstance(data, str):
            used += len(data)
            if used > limit:
                del part["data"]
                part["omitted"] = "the answer held more pictures and sounds than a run record keeps"
    return parts


def block_part(block: Any) -> dict[str, Any]:
    """One content block as a part of a result (`gui.core.tools.media`)."""
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return media_part(block.type, block.data, block.mime_type)
    if isinstance(block, ResourceLink):
        link = {"type": "resource_link", "uri": str(block.uri), "name": block.name, "title": block.title,
                "description": block.description, "mime_type": block.mime_type}
        return {k: v for k, v in link.items() if v is not None}
    if isinstance(block, EmbeddedResource):
        return resource_part(block.resource)
    kind = getattr(block, "type", "content")
    return {"type": "text", "text": f"[{kind} content this version cannot show]"}


def resource_part(resource: TextResourceContents | BlobResourceContents) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "resource", "uri": str(resource.uri)}
    if resource.mime_type:
        part["mime_type"] = resource.mime_type
    if isinstance(resource, TextResourceContents):
        part["text"] = resource.text
    else:
        part.update({k: v for k, v in media_part("resource", resource.blob, resource.mime_type).items()
                     if k in ("data", "omitted")})
    return part
