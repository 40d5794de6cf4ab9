"""In-memory stores behind the core's ports: for tests, demos, and the app with `SEQDESK_MEMORY=1`.

They follow the same contract as the TinyDB stores (`tests/store/test_contract.py` runs the same
cases over both). `MemoryInteractionStore` round-trips every record through JSON on save, exactly as
a file store would, so a value that could not be persisted fails here too instead of only in
production.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping

from gui.core.approvals import DONE, Done, check_mode
from gui.core.interactions import (
    ApprovalMode,
    InteractionFilter,
    InteractionKind,
    InteractionRecord,
    InteractionStatus,
    interaction_fields,
)
from gui.core.queries import DEFAULT_LIMIT, Page, check_window, sort_key
from gui.core.records import to_json_text


class MemoryInteractionStore:
    """`InteractionStore` over a dict."""

    def __init__(self, records: list[InteractionRecord] | None = None) -> None:
        self._records: dict[str, InteractionRecord] = {}
        for record in records or []:
            self._records[record.interaction_id] = record

    async def save(self, record: InteractionRecord) -> None:
        stored = InteractionRecord.model_validate(json.loads(to_json_text(record)))
        self._records[record.interaction_id] = stored

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        return self._records.get(interaction_id)

    async def list(self, status: InteractionStatus | None = None) -> list[InteractionRecord]:
        return self._select(InteractionFilter(status=status))[::-1]

    async def query(
        self,
        *,
        status: InteractionStatus | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord]:
        check_window(limit, offset)
        chosen = self._select(InteractionFilter(status, kind, run_id, sequence, tool_name))
        return Page(chosen[offset:offset + limit], len(chosen))

    def _select(self, wanted: InteractionFilter) -> list[InteractionRecord]:
        """The matching records, newest first."""
        rows = [(sort_key(fields, iid), record) for iid, record in self._records.items()
                if wanted.matches(fields := interaction_fields(record))]
        rows.sort(key=lambda row: row[0], reverse=True)
        return [record for _, record in rows]


class MemoryApprovalModes:
    """`ApprovalModes` over a dict; thread-safe because settings and runs touch it from anywhere.

    As in the TinyDB store, `ask` is the absence of a mode: setting it removes the tool's entry.
    """

    def __init__(self, modes: Mapping[str, ApprovalMode] | None = None) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, ApprovalMode] = {}
        for name, mode in (modes or {}).items():
            if check_mode(mode) != "ask":
                self._modes[name] = mode

    def get(self, tool_name: str) -> ApprovalMode:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def set(self, tool_name: str, mode: ApprovalMode) -> Done:
        checked = check_mode(mode)
        with self._lock:
            if checked == "ask":
                self._modes.pop(tool_name, None)
            else:
                self._modes[tool_name] = checked
        return DONE

    def all(self) -> dict[str, ApprovalMode]:
        with self._lock:
            return dict(self._modes)
