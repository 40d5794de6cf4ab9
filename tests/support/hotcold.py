"""What the hot/cold store's tests share: opening a store over a folder, the ids of what it gave back,
and a write that dies (standing for the process dying) at the n-th write of a table's file."""

from __future__ import annotations

from gui.store.hotcold import HotColdStore
from gui.store.journal import JournaledTable


def open_store(folder, **kwargs) -> HotColdStore:
    return HotColdStore(folder, "runs", **kwargs)


def ids(docs) -> list[str]:
    return [d.doc_id for d in docs]


class Crash(Exception):
    """Stands for the process dying at this point."""


def crash_on_write(monkeypatch, table, call: int = 1) -> None:
    """Make the `call`-th write of `table`'s file die before touching the file (for the hot
    documents, the append of a line to their journal)."""
    calls = 0
    target, name = (table.journal, "append") if isinstance(table, JournaledTable) else (table.storage, "write")
    real = getattr(target, name)

    def write(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == call:
            raise Crash()
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, write)
