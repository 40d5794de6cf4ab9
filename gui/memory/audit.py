"""The record of decisions in memory, behind the core's `AuditLog` port: what tests and
`SEQDESK_MEMORY=1` keep. Entries are kept as their JSON text, as a file would keep them, so a test
can edit one "by hand" (`edit`) and see `verify` name it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gui.core.asks import AuditDraft, AuditEntry, AuditHead, chain, entry_document


class MemoryAuditLog:
    """Append-only in memory: one chain, its last entry kept to chain the next."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._last: dict[str, Any] | None = None

    async def append(self, draft: AuditDraft) -> AuditEntry:
        entry = chain(draft, self._last)  # no await between reading the last and appending: one chain
        self._last = entry_document(entry)
        self._lines.append(json.dumps(self._last, ensure_ascii=False))
        return entry

    async def append_many(self, drafts: list[AuditDraft]) -> list[AuditEntry]:
        return [await self.append(draft) for draft in drafts]

    async def documents(self) -> list[dict[str, Any] | None]:
        return [json.loads(line) for line in self._lines]

    async def head(self) -> AuditHead | None:
        return None  # kept nowhere apart from the entries, as in a data folder's file

    def edit(self, position: int, change: Callable[[dict[str, Any]], None]) -> None:
        """Change the stored entry at `position` (from 1) as someone editing the file would."""
        document = json.loads(self._lines[position - 1])
        change(document)
        self._lines[position - 1] = json.dumps(document, ensure_ascii=False)


__all__ = ["MemoryAuditLog"]
