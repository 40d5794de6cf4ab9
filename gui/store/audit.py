"""The record of decisions on disk: `<data folder>/audit.jsonl`, one entry per line, only ever appended.

Behind the core's `AuditLog` port (`gui.core.asks.audit`). Each `append` writes its line with one
`write` and syncs it (the writer syncs a group of appends once, `Writer.sync_later`, before any of
them is acknowledged, as the journal of hot documents does: `gui.store.journal`), so a decision is
on disk before the tool it lets go on learns of it. `append_many` (closing with thousands of requests
waiting) writes all its lines with one `write`, synced once. Appends run on the store's writer thread, one at
a time: the chain is computed there from the last entry, kept in memory since the file was opened.

Entries chained in another store arrive as they were stored there (`append_stored`: a record moved
by `seqdesk data import` into a folder whose record is empty). Nothing here rewrites a line. The one
exception is at open: a last line cut short (the process died while writing it, so it was never
acknowledged) is cut off, and said in the log, so the next entry starts on a line of its own.
`read_documents` reads the file as it is, without the folder's lock (so
`seqdesk audit verify` works while the app runs) and off the writer's thread: each line as stored,
`None` for a line that is not a JSON object.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

from gui.core.asks import AuditDraft, AuditEntry, AuditHead, chained_lines
from gui.store.journal import Journal
from gui.store.writer import Writer

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"


def audit_path(folder: Path) -> Path:
    return Path(folder) / AUDIT_FILE


def _document(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def read_documents(path: Path) -> list[dict[str, Any] | None]:
    """Every whole line of the log at `path`, as stored (a line still being written is left out)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    return [_document(line) for line in raw.split(b"\n")[:-1] if line.strip()]


class FileAuditLog:
    """The append-only file of decisions of one data folder, written on `writer`'s thread."""

    def __init__(self, path: Path, writer: Writer) -> None:
        self.path = Path(path)
        self.writer = writer  # the store's: a request's end is written in the same trip (`TinyInteractionStore`)
        self._journal = Journal(self.path)
        self._last: dict[str, Any] | None = None

    @classmethod
    async def open(cls, folder: Path, writer: Writer) -> FileAuditLog:
        log_ = cls(audit_path(folder), writer)
        await writer.run(log_._load)
        return log_

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        whole = raw.rfind(b"\n") + 1
        if whole < len(raw):
            log.warning("%s: its last decision was cut short (never acknowledged): it is cut off", self.path)
            with open(self.path, "r+b") as file:
                file.truncate(whole)
                os.fsync(file.fileno())
        lines = [line for line in raw[:whole].split(b"\n") if line.strip()]
        self._last = _document(lines[-1]) if lines else None

    async def append(self, draft: AuditDraft) -> AuditEntry:
        return await self.writer.run(self._append, draft)

    async def append_many(self, drafts: list[AuditDraft]) -> None:
        await self.writer.run(self.append_here, drafts)

    def _append(self, draft: AuditDraft) -> AuditEntry:
        return AuditEntry.model_validate(self.append_here([draft])[0])

    def append_here(self, drafts: list[AuditDraft]) -> list[dict[str, Any]]:
        """`append_many` on the writer's thread, where it is called (the writer syncs before any
        result of it, or of what follows it in the same operation, is handed out): the entries'
        lines in one `write`. Returns the stored documents."""
        documents, lines = chained_lines(drafts, self._last)
        if documents:
            self._journal.append(lines)
            # once written (a write that failed was cut back: the chain goes on from before it)
            self._last = documents[-1]
        if not self.writer.sync_later(self._journal.sync):
            self._journal.sync()
        return documents

    async def append_stored(self, documents: list[dict[str, Any]]) -> bool:
        """Entries chained in another store (its record, moved by `seqdesk data import`), appended as
        they were stored there, hashes and all, when this record holds none: it then verifies as theirs
        did. False, and nothing written, when it holds entries already (theirs do not continue it)."""
        return await self.writer.run(self._append_stored, documents)

    def _append_stored(self, documents: list[dict[str, Any]]) -> bool:
        if self._last is not None or (self.path.exists() and self.path.stat().st_size > 0):
            return False  # entries (or a line that is none) already: theirs would not verify after it
        for document in documents:
            line = json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
            self._journal.append(line.encode("utf-8"))
            self._last = document
        if not self.writer.sync_later(self._journal.sync):
            self._journal.sync()
        return True

    async def documents(self) -> list[dict[str, Any] | None]:
        # Not on the writer's thread: reading 10,000 entries there would hold up answers behind it. The
        # file only grows by whole acknowledged lines, and a line still being written is left out.
        return await asyncio.to_thread(read_documents, self.path)

    async def head(self) -> AuditHead | None:
        return None  # nothing outside the file keeps it: the newest lines cut off are not seen

    def close(self) -> None:
        self._journal.close()


__all__ = ["AUDIT_FILE", "FileAuditLog", "audit_path", "read_documents"]
