"""The one door into SeqDesk: `Operations`, every operation a surface (pages, HTTP API, CLI, MCP) needs, and
`Engine`, which implements it in this process over the stores, the registry and the runner.
"""

from gui.core.door.asks import ASK_WAIT, AskInvalid, AskState, ProgramAsk, TooManyAsks
from gui.core.door.batch import MAX_BATCH, BatchAnswer, BatchOutcome
from gui.core.door.catalog import Catalog, SequenceStore
from gui.core.door.documents import NotFoundError, document_from, summary
from gui.core.door.engine import Engine, WhenCallError, condition_holds
from gui.core.door.following import RunFollower
from gui.core.door.mcp_servers import (
    Aspect,
    McpServerChange,
    McpServerExists,
    McpServerInvalid,
    McpServerListing,
    McpServerNotFound,
    McpServers,
    McpServerSpec,
    McpServerState,
    McpServerView,
    SignInFailed,
)
from gui.core.door.operations import EventListener, EventSource, Operations, Page, Saved

__all__ = [
    "ASK_WAIT",
    "AskInvalid",
    "Aspect",
    "BatchAnswer",
    "BatchOutcome",
    "MAX_BATCH",
    "AskState",
    "Catalog",
    "SequenceStore",
    "condition_holds",
    "document_from",
    "Engine",
    "EventListener",
    "EventSource",
    "McpServerChange",
    "McpServerExists",
    "McpServerInvalid",
    "McpServerListing",
    "McpServerNotFound",
    "McpServers",
    "McpServerSpec",
    "McpServerState",
    "McpServerView",
    "NotFoundError",
    "Operations",
    "Page",
    "ProgramAsk",
    "RunFollower",
    "Saved",
    "SignInFailed",
    "summary",
    "TooManyAsks",
    "WhenCallError",
]
