"""Saved sequences in memory, behind the core's `SequenceStore` port (tests, `SEQDESK_MEMORY=1`)."""

from __future__ import annotations

from gui.core.sequences import Sequence


class MemorySequenceStore:
    def __init__(self) -> None:
        self._items: dict[str, Sequence] = {}

    async def get(self, name: str) -> Sequence | None:
        return self._items.get(name)

    async def list(self) -> list[Sequence]:
        return list(self._items.values())

    async def save(self, sequence: Sequence) -> None:
        self._items[sequence.name] = sequence

    async def delete(self, name: str) -> bool:
        return self._items.pop(name, None) is not None

    async def identity_of(self, name: str) -> str | None:
        sequence = self._items.get(name)
        return None if sequence is None else sequence.identity or ""

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        items = {k: v for k, v in self._items.items() if k != old_name}
        items[sequence.name] = sequence
        self._items = items
