"""The tools a sequence calls: the `Tool` protocol, the one registry, what surfaces show of tools, rich
results and MCP resources.
"""

from gui.core.tools.catalog import catalog_view, tool_catalog
from gui.core.tools.info import ServerInfo, ServerStates, ToolInfo, ToolListing, short_list, tool_listing
from gui.core.tools.media import MAX_MEDIA_CHARS, content_value, good_base64, good_mime, media_part, parts_of, safe_link
from gui.core.tools.registry import (
    ApprovalSummary,
    JsonValue,
    ModelTool,
    Registry,
    ShellApproval,
    Tool,
    ToolContext,
    ToolDeclined,
)
from gui.core.tools.resources import ResourceReader

__all__ = [
    "ApprovalSummary",
    "catalog_view",
    "content_value",
    "good_base64",
    "good_mime",
    "JsonValue",
    "MAX_MEDIA_CHARS",
    "media_part",
    "ModelTool",
    "parts_of",
    "Registry",
    "ResourceReader",
    "safe_link",
    "ServerInfo",
    "ServerStates",
    "ShellApproval",
    "short_list",
    "Tool",
    "tool_catalog",
    "tool_listing",
    "ToolContext",
    "ToolDeclined",
    "ToolInfo",
    "ToolListing",
]
