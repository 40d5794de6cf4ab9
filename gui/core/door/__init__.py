"""The one door into SeqDesk: `Operations`, every operation a surface (pages, HTTP API, CLI, MCP) needs, and
`Engine`, which implements it in this process over the stores, the registry and the runner.
"""

from gui.core.door.catalog import Catalog, SequenceStore
from gui.core.door.documents import NotFoundError, document_from, summary, tool_catalog
from gui.core.door.engine import Engine, WhenCallError, condition_holds
from gui.core.door.following import RunFollower
from gui.core.door.operations import EventListener, EventSource, Operations, Page, Saved

__all__ = [
    "Catalog",
    "SequenceStore",
    "condition_holds",
    "document_from",
    "Engine",
    "EventListener",
    "EventSource",
    "NotFoundError",
    "Operations",
    "Page",
    "RunFollower",
    "Saved",
    "summary",
    "tool_catalog",
    "WhenCallError",
]
