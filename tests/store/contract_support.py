"""The store contract's fixture and records: every contract case runs over the memory stores, the
TinyDB stores (real files in a temporary folder) and the PostgreSQL stores (a fresh database on the
tests' real server, tests/support/postgres.py), so the three cannot drift apart.

`backend.reopen()` closes the TinyDB or PostgreSQL stores and opens them again (the memory stores,
which keep nothing, stay as they are): a case that reopens checks that what it saw is what was stored.
History segments hold 3 documents here, so a few records already span several segments.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gui.core.asks.interactions import (
    Answer,
    ApprovalResponse,
    CancelledResult,
    ExecutionSource,
    ExpiredResult,
    InteractionRecord,
    Question,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
)
from gui.core.runs.records import RunRecord
from gui.core.sequences.model import Sequence
from gui.memory import MemoryApprovalModes, MemoryInteractionStore, MemoryRunStore, MemorySequenceStore
from gui.pgstore import PgStores, open_pg_stores
from gui.store.open import Stores, open_stores

SEGMENT_DOCS = 3


@dataclass
class Backend:
    name: str
    folder: Path | None
    sequences: Any
    runs: Any
    interactions: Any
    modes: Any
    _stores: Stores | None = None
    _pg: PgStores | None = None

    @classmethod
    def memory(cls) -> Backend:
        return cls("memory", None, MemorySequenceStore(), MemoryRunStore(), MemoryInteractionStore(),
                   MemoryApprovalModes())

    @classmethod
    async def tinydb(cls, folder: Path) -> Backend:
        stores = await open_stores(folder, segment_docs=SEGMENT_DOCS)
        return cls("tinydb", folder, stores.sequences, stores.runs, stores.interactions, stores.modes, stores)

    @classmethod
    async def postgresql(cls, url: str) -> Backend:
        stores = await open_pg_stores(url, secret_key="")
        return cls("postgresql", None, stores.sequences, stores.runs, stores.interactions, stores.modes, _pg=stores)

    async def reopen(self) -> Backend:
        if self._stores is None and self._pg is None:
            return self
        await self.close()
        fresh = (await Backend.tinydb(self._stores.folder) if self._stores is not None
                 else await Backend.postgresql(self._pg.url))
        self.__dict__.update(fresh.__dict__)
        return self

    async def close(self) -> None:
        if self._stores is not None:
            self._stores.close()
        if self._pg is not None:
            await self._pg.close()


@pytest.fixture(params=["memory", "tinydb", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "memory":
        made = Backend.memory()
    elif request.param == "tinydb":
        made = await Backend.tinydb(tmp_path)
    else:
        made = await Backend.postgresql(request.getfixturevalue("seqdesk_database_url"))
    yield made
    await made.close()


def run(run_id: str, *, sequence: str = "nightly", status: str = "succeeded", created_at: float = 1000.0,
        **extra: Any) -> RunRecord:
    finished = None if status == "running" else created_at + 5
    return RunRecord(run_id=run_id, sequence=sequence, status=status, created_at=created_at,  # type: ignore[arg-type]
                     finished_at=finished, **extra)


def sequence(name: str, description: str = "") -> Sequence:
    return Sequence.model_validate({"name": name, "description": description, "groups": [
        {"name": f"g-{name.encode().hex()}", "tools": [{"tool": "echo", "args": {"value": 1}}]}]})


def interaction(iid: str, *, kind: str = "shell", run_id: str = "run-1", created_at: int = 1_000_000,
                status: str = "pending", sequence: str = "nightly", tool: str = "cmd_run") -> InteractionRecord:
    common: dict[str, Any] = {"interaction_id": iid, "turn_id": run_id, "created_at": created_at,
                              "sequence_name": sequence,
                              "source": ToolSource(tool_call_id=f"call-{iid}", tool_name=tool)}
    request: Any
    if kind == "shell":
        request = ShellApprovalRequest(**common, title="Run a command", command="make", cwd="/srv",
                                       reason="deploy", operation="exec")
    elif kind == "tool":
        request = ToolApprovalRequest(**common, validated_input={"path": "/tmp/x", "nested": {"a": [1]}})
    else:
        request = QuestionRequest(**{**common, "source": ExecutionSource()}, title="Which?", questions=[
            Question(question_id="q1", prompt="Pick", response_type="text")])
    if status == "pending":
        return InteractionRecord(request=request)
    results: dict[str, Any] = {
        "resolved": ResolvedResult(interaction_id=iid, response=(
            QuestionResponse(answers=[Answer(question_id="q1", value="x")]) if kind == "question"
            else ApprovalResponse(decision="approved"))),
        "cancelled": CancelledResult(interaction_id=iid, reason="turn_stopped"),
        "expired": ExpiredResult(interaction_id=iid),
    }
    return InteractionRecord(request=request, status=status, result=results[status],  # type: ignore[arg-type]
                             resolved_at=created_at + 10)


def ids(records: list[Any]) -> list[str]:
    return [getattr(r, "run_id", None) or r.interaction_id for r in records]
