"""Saved sequences: the store port and the operations on them (behind the door:
surfaces use `Engine`, and the documents' helpers in `gui.core.door.documents`).

Validation that needs the other saved sequences (group names unique across all of them, `seq_call`
cycles) happens here, under one lock, so two saves at once cannot both take the same name.

Each saved sequence has an `identity`: a new one when a name is saved that is not saved yet, the
old one kept when a sequence is saved again or renamed. A sequence deleted and made again under the
same name gets a new one, so nothing given to the deleted one (an approval rule) passes to it. A
sequence saved before SeqDesk kept identities reads with one made from its name (`legacy_identity`),
the same at every read, and keeps it from its next save on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from gui.core.door.documents import NotFoundError
from gui.core.events import EventBus, SequenceDeleted, SequenceSaved
from gui.core.sequences import Group, Sequence, ValidationResult, check_document, digest
from gui.core.tools import Registry, catalog_view, tool_catalog


class SequenceStore(Protocol):
    """Where sequences live, as validated trees. `save` is durable when it returns."""

    async def get(self, name: str) -> Sequence | None: ...

    async def list(self) -> list[Sequence]: ...

    async def save(self, sequence: Sequence) -> None: ...

    async def delete(self, name: str) -> bool: ...

    async def identity_of(self, name: str) -> str | None:
        """The identity kept with the sequence `name` (without reading its whole tree): None when no
        sequence has that name, "" when it was saved before identities were kept."""
        ...

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        """Save `sequence` and remove `old_name` in one durable step (a rename): never both, never neither."""
        ...


def new_identity() -> str:
    return uuid.uuid4().hex[:16]


def legacy_identity(name: str) -> str:
    """The identity of a sequence saved before SeqDesk kept identities (the same at every read)."""
    return "legacy-" + digest({"legacy-sequence": name})[:16]


def identified(sequence: Sequence) -> Sequence:
    """A saved sequence with its identity (a legacy one's made from its name)."""
    if sequence.identity:
        return sequence
    return sequence.model_copy(update={"identity": legacy_identity(sequence.name)})


def kept_identity(name: str, stored: str | None) -> str:
    """The identity of a sequence saved under `name`, where `SequenceStore.identity_of` found `stored`."""
    if stored is None:
        return new_identity()
    return stored or legacy_identity(name)


async def no_hosts() -> frozenset[str]:
    """The hosts of an app that runs sequences in its own process: none."""
    return frozenset()


def names_hosts(doc: Any) -> bool:
    """Whether a document may name a host (a step's `"on"`): only then are the hosts looked up."""
    groups = doc.get("groups") if isinstance(doc, dict) else None
    return isinstance(groups, list) and any(isinstance(g, dict) and '"on"' in str(g.get("tools", ""))
                                            for g in groups)


class Catalog:
    def __init__(self, store: SequenceStore, registry: Registry | None = None, bus: EventBus | None = None,
                 hosts: Callable[[], Awaitable[frozenset[str]]] = no_hosts) -> None:
        self.store = store
        self.registry = registry
        self.bus = bus
        self.hosts = hosts  # the hosts a step's `on` may name (set by the composition root)
        self._lock = asyncio.Lock()

    async def check(self, doc: Any, *, replacing: str | None = None, as_new: bool = False) -> ValidationResult:
        """Validated in a worker thread: a document of megabytes must not freeze the app meanwhile.
        The document may keep the group names of the sequence it replaces (its own name, or
        `replacing` for a rename). `as_new`: it replaces nothing but `replacing`, so a saved sequence
        of its name is a conflict, reported with every other naming conflict in the same pass."""
        name = doc.get("name") if isinstance(doc, dict) else None
        own = name if isinstance(name, str) and not as_new else None
        sequences = [s for s in await self.store.list() if s.name not in (own, replacing)]
        hosts = await self.hosts() if names_hosts(doc) else None

        def check() -> ValidationResult:  # the view walks every saved sequence: in the thread too
            return check_document(doc, dataclasses.replace(catalog_view(sequences, self.registry, hosts),
                                                           as_new=as_new))

        return await asyncio.to_thread(check)

    async def check_unsaved(self, doc: Any) -> Sequence:
        """A document to run without saving it: checked against the tools only; DslError."""
        hosts = await self.hosts() if names_hosts(doc) else None
        result = await asyncio.to_thread(check_document, doc, tool_catalog(self.registry, hosts) if self.registry
                                         else None)
        return result.raise_for_errors()

    async def create(self, doc: Any, *, as_new: bool = False) -> tuple[Sequence, ValidationResult]:
        """Validate and save (a sequence with an existing name is replaced, unless `as_new`: then that
        name is a conflict). InvalidSequenceError, with the whole result, on errors."""
        async with self._lock:
            result = await self.check(doc, as_new=as_new)
            sequence = result.raise_for_errors()
            identity = kept_identity(sequence.name, await self.store.identity_of(sequence.name))
            sequence = sequence.model_copy(update={"identity": identity})
            await self.store.save(sequence)
        if self.bus is not None:
            self.bus.publish(SequenceSaved, name=sequence.name)
        return sequence, result

    async def rename(self, old_name: str, doc: Any) -> tuple[Sequence, ValidationResult]:
        """Validate `doc` as the replacement of `old_name` and swap them in one store operation."""
        async with self._lock:
            old = await self.store.get(old_name)
            if old is None:
                raise NotFoundError(f"there is no saved sequence named '{old_name}'")
            name = doc.get("name") if isinstance(doc, dict) else None
            # A rename never overwrites a third sequence: its new name must be free.
            result = await self.check(doc, replacing=old_name, as_new=name != old_name)
            sequence = result.raise_for_errors().model_copy(update={"identity": identified(old).identity})
            if sequence.name == old_name:
                await self.store.save(sequence)
            else:
                await self.store.replace(old_name, sequence)
        if self.bus is not None:
            if sequence.name != old_name:
                self.bus.publish(SequenceDeleted, name=old_name)
            self.bus.publish(SequenceSaved, name=sequence.name)
        return sequence, result

    async def list(self) -> list[Sequence]:
        return sorted(map(identified, await self.store.list()), key=lambda s: s.name.lower())

    async def get(self, name: str) -> Sequence | None:
        sequence = await self.store.get(name)
        return identified(sequence) if sequence is not None else None

    async def delete(self, name: str) -> str | None:
        """Delete a saved sequence; the identity it had (None when there was none)."""
        async with self._lock:
            identity = kept_identity(name, await self.store.identity_of(name))
            deleted = await self.store.delete(name)
        if deleted and self.bus is not None:
            self.bus.publish(SequenceDeleted, name=name)
        return identity if deleted else None

    async def resolve(self, name: str) -> tuple[Sequence, Group | None]:
        """A sequence by name, or the group of that name with the sequence that holds it."""
        sequence = await self.get(name)
        if sequence is not None:
            return sequence, None
        for seq in await self.store.list():
            group = seq.group(name)
            if group is not None:
                return identified(seq), group
        raise NotFoundError(f"no saved sequence or group is named '{name}'")


def dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
