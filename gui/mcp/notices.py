"""What a server tells about a call while it runs: progress notifications and log messages.

Progress is tied to its call by the protocol (its progress token), so `progress_reporter` hands each
report to that call's tool context (the run panel's progress bar, `tool.progress`). Log messages are
not tied to a call: `deliver_log` gives one to the call in flight, or to each of several, as a line of
its log in the run record. Values come from a server: they are bounded and made into plain text.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from mcp.shared.dispatcher import ProgressFnT
from mcp_types import LoggingMessageNotificationParams

from gui.core.tools import ToolContext

log = logging.getLogger(__name__)
_LEVELS = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}


def progress_reporter(ctx: ToolContext) -> ProgressFnT | None:
    """The SDK's progress callback for one call (None when nobody listens for its progress)."""
    report = ctx.progress
    if report is None:
        return None

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        try:
            report(float(progress), float(total) if total is not None else None,
                   str(message) if message is not None else None)
        except (TypeError, ValueError):  # a server's nonsense progress is ignored, never a crash
            return

    return on_progress


def log_text(params: LoggingMessageNotificationParams) -> str:
    data: Any = params.data
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return f"{params.logger}: {text}" if params.logger else text


def deliver_log(server: str, params: LoggingMessageNotificationParams, calls: Iterable[ToolContext]) -> None:
    level = params.level if params.level in _LEVELS else "info"
    text = log_text(params)
    targets = [c for c in calls if c.log is not None]
    if not targets:
        log.info("MCP server %s logged (%s): %s", server, level, text[:500])
        return
    for ctx in targets:
        assert ctx.log is not None
        ctx.log(level, text)


def call_error_words(server: str, message: str) -> str:
    """A call's failure in words a person can act on; the SDK's own words stay at the end."""
    if "no back-channel for server-initiated requests" in message:
        return (f"the server asks its question the older way, which the current protocol does not carry: "
                f"set the protocol of '{server}' to legacy in Settings ({message})")
    return message
