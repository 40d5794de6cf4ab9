"""In-memory fakes of the core's stores: for tests, and for the CLI until the TinyDB adapters land.

`MemoryInteractionStore` round-trips every record through JSON on save, exactly as a file store
would, so a value that could not be persisted fails here too instead of only in production.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping

from gui.core.approvals import check_mode
from gui.core.interactions import ApprovalMode, InteractionRecord, InteractionStatus
from gui.core.records import to_json_text


class MemoryInteractionStore:
    """`InteractionStore` over a dict, in insertion order (the order requests were made)."""

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
        return [r for r in self._records.values() if status is None or r.status == status]


class MemoryApprovalModes:
    """`ApprovalModes` over a dict; thread-safe because settings and runs touch it from anywhere."""

    def __init__(self, modes: Mapping[str, ApprovalMode] | None = None) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, ApprovalMode] = {name: check_mode(m) for name, m in (modes or {}).items()}

    def get(self, tool_name: str) -> ApprovalMode:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def set(self, tool_name: str, mode: ApprovalMode) -> None:
        checked = check_mode(mode)
        with self._lock:
            self._modes[tool_name] = checked

    def all(self) -> dict[str, ApprovalMode]:
        with self._lock:
            return dict(self._modes)
