"""An MCP tool as a SeqDesk tool: safety from annotations and trust, schema checks, results."""

from __future__ import annotations

import pytest
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from mcp_types import Tool as RemoteTool

from gui.core.errors import ToolArgumentError, ToolError
from gui.mcp.config import McpServerConfig
from gui.mcp.tool import McpTool, result_value

SCHEMA = {"type": "object", "properties": {"tz": {"type": "string"}, "n": {"type": "integer", "enum": [1, 2]}},
          "required": ["tz"]}


class FakeConnection:
    def __init__(self, trusted: bool = False) -> None:
        self.config = McpServerConfig(name="srv", command="x", trusted=trusted)


def make(read_only: bool | None, trusted: bool, schema: dict = SCHEMA) -> McpTool:
    annotations = None if read_only is None else ToolAnnotations(read_only_hint=read_only)
    remote = RemoteTool(name="now", description="The time now", input_schema=schema, annotations=annotations)
    return McpTool(FakeConnection(trusted), remote, trusted=trusted)  # type: ignore[arg-type]


@pytest.mark.parametrize(("read_only", "trusted", "safe", "approval"), [
    (True, True, True, "none"),
    (False, True, False, "tool"),
    (None, True, False, "tool"),
    (True, False, False, "tool"),
    (None, False, False, "tool"),
])
def test_only_a_trusted_servers_read_only_tools_run_unasked_and_side_by_side(read_only, trusted, safe, approval):
    tool = make(read_only, trusted)
    assert tool.name == "srv.now"
    assert tool.description == "The time now"
    assert (tool.concurrency_safe, tool.approval) == (safe, approval)


def test_arguments_are_checked_against_the_servers_schema_listing_every_problem():
    tool = make(True, True)
    assert tool.input_schema() == SCHEMA
    assert tool.validate_args({"tz": "UTC", "n": 2}) == {"tz": "UTC", "n": 2}
    with pytest.raises(ToolArgumentError) as err:
        tool.validate_args({"n": 3})
    assert [path for path, _ in err.value.problems] == ["", "n"]
    assert "'tz' is a required property" in str(err.value)


def test_a_broken_schema_from_a_server_only_requires_an_object():
    tool = make(True, True, schema={"type": "object", "properties": {"x": {"type": "nonsense"}}})
    assert tool.validate_args({"x": 1}) == {"x": 1}


def test_results_are_structured_content_else_joined_text_and_errors_raise_with_the_servers_words():
    text = [TextContent(type="text", text="a"), TextContent(type="text", text="b")]
    assert result_value("s.t", CallToolResult(content=text)) == "a\nb"
    assert result_value("s.t", CallToolResult(content=text, structured_content={"k": 1})) == {"k": 1}
    image = ImageContent(type="image", data="AAAA", mime_type="image/png")
    assert result_value("s.t", CallToolResult(content=[image])) == {
        "text": "", "content": [{"type": "image", "mime_type": "image/png", "data": "AAAA"}]}
    with pytest.raises(ToolError, match="s.t: no such zone"):
        result_value("s.t", CallToolResult(content=[TextContent(type="text", text="no such zone")], is_error=True))


def test_a_value_the_server_wrapped_as_result_is_unwrapped_only_when_its_output_schema_says_so():
    wrapped = {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}
    remote = RemoteTool(name="now", input_schema=SCHEMA, output_schema=wrapped)
    tool = McpTool(FakeConnection(), remote, trusted=False)  # type: ignore[arg-type]
    text = [TextContent(type="text", text="12:00")]
    assert tool._wrapped is True
    assert result_value("s.t", CallToolResult(content=text, structured_content={"result": "12:00"}),
                        wrapped=True) == "12:00"
    assert result_value("s.t", CallToolResult(content=text, structured_content={"result": "12:00"})) == {
        "result": "12:00"}


@pytest.mark.parametrize(("output_schema", "expected"), [
    (None, None),  # the server does not say: nobody can tell before running
    ({"type": "object", "properties": {"timezone": {"type": "string"}}}, "object"),
    ({"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}, "string"),
    ({"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}, "number"),
    ({"type": "object", "properties": {"result": {}}, "required": ["result"]}, None),
])
def test_the_result_type_comes_from_the_output_schema_so_the_editor_can_warn_early(output_schema, expected):
    remote = RemoteTool(name="now", input_schema=SCHEMA, output_schema=output_schema)
    assert McpTool(FakeConnection(), remote, trusted=False).result_type == expected  # type: ignore[arg-type]


def test_images_audio_and_resource_links_are_kept_with_the_text_and_bad_media_is_refused():
    from mcp_types import AudioContent, EmbeddedResource, ResourceLink, TextResourceContents

    from gui.core.tools.media import parts_of, safe_link

    blocks = [TextContent(type="text", text="see"), ImageContent(type="image", data="iVBORw0=", mime_type="image/png"),
              AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav"),
              ResourceLink(type="resource_link", uri="https://example.com/r", name="report", title="The report"),
              EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///a.txt", text="A")),
              ImageContent(type="image", data="not base64!", mime_type="text/html\"><script>")]
    value = result_value("s.t", CallToolResult(content=blocks))
    assert value["text"] == "see"
    parts = parts_of(value)
    assert parts is not None and [p["type"] for p in parts] == [
        "text", "image", "audio", "resource_link", "resource", "image"]
    assert parts[1] == {"type": "image", "mime_type": "image/png", "data": "iVBORw0="}
    assert parts[3] == {"type": "resource_link", "uri": "https://example.com/r", "name": "report",
                        "title": "The report"}
    assert parts[4] == {"type": "resource", "uri": "file:///a.txt", "text": "A"}
    assert parts[5]["mime_type"] == "application/octet-stream"
    assert "data" not in parts[5] and parts[5]["omitted"]
    assert safe_link("https://example.com/r") and safe_link("javascript:alert(1)") is None
    assert safe_link("file:///etc/passwd") is None


def test_a_trusted_read_only_tool_that_reaches_outside_asks_first():
    from mcp_types import ToolAnnotations

    fetch = RemoteTool(name="fetch", input_schema=SCHEMA,
                       annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
    local = RemoteTool(name="peek", input_schema=SCHEMA, annotations=ToolAnnotations(read_only_hint=True))
    assert McpTool(FakeConnection(), fetch, trusted=True).approval == "tool"  # type: ignore[arg-type]
    assert McpTool(FakeConnection(), local, trusted=True).approval == "none"  # type: ignore[arg-type]
    assert McpTool(FakeConnection(), fetch, trusted=False).approval == "tool"  # type: ignore[arg-type]


def test_an_answer_with_more_media_than_a_record_keeps_drops_the_rest_saying_why():
    from gui.core.tools.media import MAX_MEDIA_CHARS

    big = "A" * (MAX_MEDIA_CHARS - 4)
    blocks = [ImageContent(type="image", data=big, mime_type="image/png") for _ in range(5)]
    parts = result_value("s.t", CallToolResult(content=blocks))["content"]
    assert ["data" in p for p in parts] == [True, True, True, False, False]
    assert "more pictures and sounds" in parts[3]["omitted"]


def test_a_tool_without_output_schema_is_said_to_give_text_where_its_result_is_saved():
    from support.builders import group, seq, tools

    from gui.core.sequences.validator import check_document
    from gui.core.tools import tool_catalog
    from gui.core.tools.registry import Registry

    plain = McpTool(FakeConnection(), RemoteTool(name="now", input_schema=SCHEMA), trusted=False)  # type: ignore[arg-type]
    catalog = tool_catalog(Registry([plain]))
    call = {"tool": plain.name, "args": {"tz": "UTC"}, "as": "now"}

    def saved_to(kind: str):
        return check_document(seq(group("g", out={"now": kind}, tools=tools(call))), catalog)

    refused = saved_to("number")
    assert [(p.code, p.loc) for p in refused.errors] == [("result-type", ("groups", 0, "tools", 0, "as"))]
    assert "its result is text" in refused.errors[0].message and "make 'now' text (string)" in refused.errors[0].message
    warned = saved_to("object")  # an object only when pictures come with the text: said, not refused
    assert warned.ok and [(p.code, p.loc) for p in warned.warnings] == [("result-is-text",
                                                                         ("groups", 0, "tools", 0, "as"))]
    assert "its result is text" in warned.warnings[0].message
    assert "this step fails as it runs" in warned.warnings[0].message  # what happens when it is text
    assert saved_to("string").ok and not saved_to("string").warnings
    assert saved_to("array").ok and not saved_to("array").warnings
    assert plain.result_type is None  # the server promised nothing


@pytest.mark.parametrize("trusted", [False, True])
def test_a_server_whose_steps_may_run_side_by_side_runs_them_so_and_still_asks(trusted: bool) -> None:
    connection = FakeConnection(trusted)
    connection.config = McpServerConfig(name="srv", command="x", trusted=trusted, side_by_side=True)
    tool = McpTool(connection, RemoteTool(name="run", input_schema=SCHEMA), trusted=trusted)  # type: ignore[arg-type]
    assert tool.concurrency_safe  # beside the group's other tools, whatever its annotations say
    assert tool.approval == "tool"  # it says nothing of only reading: it asks first, as before


def test_its_approval_card_says_where_the_server_is_never_a_credential_in_its_address() -> None:
    http = McpServerConfig(name="web", transport="http", url="https://me:pw@node-a.example:8443/mcp?key=s3cret#x")
    assert http.address == "https://node-a.example:8443/mcp"
    stdio = McpServerConfig(name="local", command="uvx", args=["mcp-server-time", "--token", "s3cret"])
    assert stdio.address == "uvx"
    tool = McpTool(FakeConnection(), RemoteTool(name="now", input_schema=SCHEMA), trusted=False)  # type: ignore[arg-type]
    assert tool.server_address == "x"
