"""Requests for a person, the approval modes and the record of decisions in memory, behind the core's
`InteractionStore`, `ApprovalModes` and `AuditLog` ports (`gui.core.asks`).

`MemoryInteractionStore` round-trips every record through JSON on save, exactly as the TinyDB store
does (its JSON document, written by the standard library), so a value that could not be persisted
fails here too instead of only in production. The
record of decisions keeps each entry as its JSON text, as a file would keep it, so a test can edit
one "by hand" (`MemoryAuditLog.edit`) and see `verify` name it.
"""

from __future__ import annotations

import builtins
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from gui.core.asks import (
    DONE,
    ApprovalMode,
    ApprovalRule,
    AuditDraft,
    AuditEntry,
    AuditHead,
    AuditLog,
    Done,
    InteractionFilter,
    InteractionKind,
    InteractionRecord,
    InteractionStatus,
    InteractionStatusFilter,
    chain,
    check_mode,
    entry_document,
    interaction_fields,
)
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, check_window, sort_key


class MemoryInteractionStore:
    """`InteractionStore` over a dict of JSON texts: what comes back is a copy, never shared."""

    def __init__(self, records: list[InteractionRecord] | None = None) -> None:
        self._records: dict[str, tuple[dict[str, Any], str]] = {}
        for record in records or []:
            self._keep(record)

    def _keep(self, record: InteractionRecord, document: dict[str, Any] | None = None) -> None:
        text = json.dumps(record.model_dump(mode="json") if document is None else document, separators=(",", ":"))
        _parse(text)  # what a file store would read back: fails here if it could not be stored
        # (what queries read, the record's own values: the same as read back, and no copies of its texts)
        self._records[record.interaction_id] = (interaction_fields(record), text)

    async def save(self, record: InteractionRecord) -> None:
        self._keep(record)

    async def save_many(self, records: Sequence[InteractionRecord],
                        documents: Sequence[dict[str, Any]] | None = None) -> None:
        for index, record in enumerate(records):
            self._keep(record, None if documents is None else documents[index])

    async def save_with(self, record: InteractionRecord, decision: AuditDraft, audit: AuditLog) -> None:
        await audit.append(decision)
        await self.save(record)

    async def get(self, interaction_id: str) -> InteractionRecord | None:
        item = self._records.get(interaction_id)
        return _parse(item[1]) if item else None

    async def list(self, status: InteractionStatus | None = None) -> list[InteractionRecord]:
        return [_parse(text) for text in reversed(self._select(InteractionFilter(status=status)))]

    async def query(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord]:
        check_window(limit, offset)
        chosen = self._select(InteractionFilter(status, kind, run_id, sequence, tool_name))
        return Page([_parse(text) for text in chosen[offset:offset + limit]], len(chosen))

    async def query_texts(
        self,
        *,
        status: InteractionStatusFilter | None = None,
        kind: InteractionKind | None = None,
        run_id: str | None = None,
        sequence: str | None = None,
        tool_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[InteractionRecord | StoredText]:
        """`query`: this store vouches for no text, each record is given as it is read."""
        page = await self.query(status=status, kind=kind, run_id=run_id, sequence=sequence, tool_name=tool_name,
                                limit=limit, offset=offset)
        return Page(list[InteractionRecord | StoredText](page.items), page.total)

    def _select(self, wanted: InteractionFilter) -> builtins.list[str]:
        """The matching records' texts, newest first."""
        rows = sorted(((sort_key(fields, iid), text) for iid, (fields, text) in self._records.items()
                       if wanted.matches(fields)), reverse=True)
        return [text for _, text in rows]


def _parse(text: str) -> InteractionRecord:
    try:
        return InteractionRecord.model_validate_json(text)
    except ValidationError:  # pydantic's JSON parser refuses a lone surrogate's escape: the slow way
        return InteractionRecord.model_validate(json.loads(text))


class MemoryApprovalModes:
    """`ApprovalModes` over a dict; thread-safe because settings and runs touch it from anywhere.

    As in the TinyDB store, `ask` is the absence of a mode: setting it removes the tool's entry.
    """

    def __init__(self, modes: Mapping[str, ApprovalMode] | None = None) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, ApprovalMode] = {}
        self._rules: dict[str, ApprovalRule] = {}
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

    def rules(self) -> builtins.list[ApprovalRule]:
        with self._lock:
            return builtins.list(self._rules.values())

    def add_rule(self, rule: ApprovalRule) -> Done:
        with self._lock:
            self._rules[rule.rule_id] = rule
        return DONE

    def remove_rule(self, rule_id: str) -> Done:
        with self._lock:
            self._rules.pop(rule_id, None)
        return DONE


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

    async def append_many(self, drafts: list[AuditDraft]) -> None:
        for draft in drafts:
            await self.append(draft)

    async def documents(self) -> list[dict[str, Any] | None]:
        return [json.loads(line) for line in self._lines]

    async def head(self) -> AuditHead | None:
        return None  # kept nowhere apart from the entries, as in a data folder's file

    def edit(self, position: int, change: Callable[[dict[str, Any]], None]) -> None:
        """Change the stored entry at `position` (from 1) as someone editing the file would."""
        document = json.loads(self._lines[position - 1])
        change(document)
        self._lines[position - 1] = json.dumps(document, ensure_ascii=False)
