"""Approval modes in the settings file: read from memory, and durable before anyone is told.

The core reads a tool's mode on the event loop for every approval, so `get` answers from memory.
`set` applies the change in memory at once (so the next approval already sees it), queues the
write on the store's writer, and returns `Saved`: awaiting it returns once the writer has written
and fsynced the file. `InteractionService.respond` awaits it before an "approve and always allow"
is acknowledged, so a process killed right after the answer still has the mode on disk.

As in the memory store, `ask` is the absence of a mode: setting it removes the tool's entry.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Generator, Mapping
from concurrent.futures import Future
from typing import Any

from pydantic import ValidationError

from gui.core.asks import APPROVAL_MODES, ApprovalMode, ApprovalRule, check_mode
from gui.store.hotcold import HotColdStore
from gui.store.writer import Writer

log = logging.getLogger(__name__)

MODES_ID = "modes"


def is_settings(doc_id: str, doc: Mapping[str, Any]) -> bool:
    """A document of the settings table (to tell it from a fragment when salvaging)."""
    return doc_id == MODES_ID and isinstance(doc.get("modes"), dict)


class Saved:
    """Awaitable: completes when the write it stands for is on disk (raises if that write failed).

    Awaiting it never cancels the write: a cancelled caller leaves it to finish."""

    def __init__(self, future: Future[Any] | None) -> None:
        self._future = future

    def __await__(self) -> Generator[Any, None, None]:
        if self._future is not None:
            yield from asyncio.shield(asyncio.wrap_future(self._future)).__await__()


class TinyApprovalModes:
    """`ApprovalModes` stored in the `settings` table, document `modes`."""

    def __init__(self, table: HotColdStore, writer: Writer) -> None:
        self._table, self._writer = table, writer
        self._lock = threading.Lock()
        self._last: Future[Any] | None = None
        doc = writer.run_sync(table.get, MODES_ID)
        stored = doc.get("modes") if doc else None
        self._modes: dict[str, ApprovalMode] = {
            name: mode for name, mode in (stored.items() if isinstance(stored, dict) else ())
            if isinstance(name, str) and mode in APPROVAL_MODES and mode != "ask"}
        self._rules: dict[str, ApprovalRule] = {}
        stored_rules = doc.get("rules") if doc else None
        for raw in stored_rules if isinstance(stored_rules, list) else []:
            try:
                rule = ApprovalRule.model_validate(raw)
            except ValidationError:
                log.warning("a stored approval rule that cannot be read is left out: %r", raw)
                continue
            self._rules[rule.rule_id] = rule
        readable = sum(1 for mode in (stored.values() if isinstance(stored, dict) else ()) if mode in APPROVAL_MODES)
        if doc and (not isinstance(stored, dict) or readable != len(stored)):
            log.warning("stored approval modes that cannot be read are left out: %r", stored)

    def get(self, tool_name: str) -> ApprovalMode:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def set(self, tool_name: str, mode: ApprovalMode) -> Saved:
        checked = check_mode(mode)
        with self._lock:
            last = self._last
            unchanged = self._modes.get(tool_name, "ask") == checked
            if unchanged and (last is None or not last.done() or last.exception() is None):
                return Saved(last)  # nothing new to write: durable once the last write is
            if checked == "ask":
                self._modes.pop(tool_name, None)
            else:
                self._modes[tool_name] = checked
            return self._write()

    def _write(self) -> Saved:
        """Queue the whole settings document (caller holds the lock, so writes keep their order)."""
        doc = {"modes": dict(self._modes), "rules": [r.model_dump(mode="json") for r in self._rules.values()]}
        future = self._writer.submit(self._table.put_hot, MODES_ID, doc)
        self._last = future
        future.add_done_callback(_report)
        return Saved(future)

    def rules(self) -> list[ApprovalRule]:
        with self._lock:
            return list(self._rules.values())

    def add_rule(self, rule: ApprovalRule) -> Saved:
        with self._lock:
            self._rules[rule.rule_id] = rule
            return self._write()

    def remove_rule(self, rule_id: str) -> Saved:
        with self._lock:
            if self._rules.pop(rule_id, None) is None:
                return Saved(self._last)
            return self._write()

    def all(self) -> dict[str, ApprovalMode]:
        with self._lock:
            return dict(self._modes)


def _report(future: Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("could not save approval modes: %s", future.exception())
