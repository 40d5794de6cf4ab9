"""Saved sequences: the store port, an in-memory store, and the operations on them.

Validation that needs the other saved sequences (group names unique across all of them, `seq_call`
cycles) happens here, under one lock, so two saves at once cannot both take the same name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from gui.core.calls import direct_calls
from gui.core.errors import DslError, Problem
from gui.core.events import EventBus
from gui.core.model import Group, Sequence, Signature
from gui.core.registry import Registry, ToolArgumentError
from gui.core.signature import signature_of
from gui.core.validator import CatalogView, ValidationResult, check_document


class SequenceStore(Protocol):
    """Where sequences live, as validated trees. `save` is durable when it returns."""

    async def get(self, name: str) -> Sequence | None: ...

    async def list(self) -> list[Sequence]: ...

    async def save(self, sequence: Sequence) -> None: ...

    async def delete(self, name: str) -> bool: ...

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        """Save `sequence` and remove `old_name` in one durable step (a rename): never both, never neither."""
        ...


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

    async def replace(self, old_name: str, sequence: Sequence) -> None:
        items = {k: v for k, v in self._items.items() if k != old_name}
        items[sequence.name] = sequence
        self._items = items


def tool_catalog(registry: Registry) -> CatalogView:
    """A view that knows only the tools (for checking a file on its own)."""
    return _view([], registry)


def _validate_args(registry: Registry) -> Any:
    def check(name: str, args: dict[str, Any]) -> None:
        tool = registry.get(name)
        if tool is None:
            return
        try:
            tool.validate_args(args)
        except ToolArgumentError as exc:
            raise ValueError(str(exc)) from None

    return check


def _view(sequences: list[Sequence], registry: Registry | None) -> CatalogView:
    owners: dict[str, str] = {}
    calls: dict[str, frozenset[str]] = {}
    for seq in sequences:
        for group in seq.groups:
            owners[group.name] = seq.name
        calls.update(direct_calls(seq))
    return CatalogView(
        group_owner=owners,
        sequence_names=frozenset(s.name for s in sequences),
        calls=calls,
        tool_exists=(registry.__contains__ if registry is not None else None),
        validate_args=(_validate_args(registry) if registry is not None else None),
    )


class NotFoundError(LookupError):
    """No saved sequence or group has that name."""


class Catalog:
    def __init__(self, store: SequenceStore, registry: Registry | None = None, bus: EventBus | None = None) -> None:
        self.store = store
        self.registry = registry
        self.bus = bus
        self._lock = asyncio.Lock()

    async def view(self, *exclude: str | None) -> CatalogView:
        sequences = [s for s in await self.store.list() if s.name not in exclude]
        return _view(sequences, self.registry)

    async def check(self, doc: Any, *, replacing: str | None = None) -> ValidationResult:
        """Validated in a worker thread: a document of megabytes must not freeze the app meanwhile.
        The document may keep the group names of the sequence it replaces (its own name, or
        `replacing` for a rename)."""
        name = doc.get("name") if isinstance(doc, dict) else None
        view = await self.view(name if isinstance(name, str) else None, replacing)
        return await asyncio.to_thread(check_document, doc, view)

    async def check_unsaved(self, doc: Any) -> Sequence:
        """A document to run without saving it: checked against the tools only; DslError."""
        result = await asyncio.to_thread(check_document, doc, tool_catalog(self.registry) if self.registry
                                         else None)
        return result.raise_for_errors()

    async def create(self, doc: Any) -> tuple[Sequence, ValidationResult]:
        """Validate and save (a sequence with an existing name is replaced). DslError on errors."""
        async with self._lock:
            result = await self.check(doc)
            sequence = result.raise_for_errors()
            await self.store.save(sequence)
        if self.bus is not None:
            self.bus.publish("sequence.saved", name=sequence.name)
        return sequence, result

    async def rename(self, old_name: str, doc: Any) -> tuple[Sequence, ValidationResult]:
        """Validate `doc` as the replacement of `old_name` and swap them in one store operation."""
        async with self._lock:
            if await self.store.get(old_name) is None:
                raise NotFoundError(f"there is no saved sequence named '{old_name}'")
            result = await self.check(doc, replacing=old_name)
            sequence = result.raise_for_errors()
            if sequence.name == old_name:
                await self.store.save(sequence)
            else:
                await self.store.replace(old_name, sequence)
        if self.bus is not None:
            if sequence.name != old_name:
                self.bus.publish("sequence.deleted", name=old_name)
            self.bus.publish("sequence.saved", name=sequence.name)
        return sequence, result

    async def list(self) -> list[Sequence]:
        return sorted(await self.store.list(), key=lambda s: s.name.lower())

    async def get(self, name: str) -> Sequence | None:
        return await self.store.get(name)

    async def delete(self, name: str) -> bool:
        async with self._lock:
            deleted = await self.store.delete(name)
        if deleted and self.bus is not None:
            self.bus.publish("sequence.deleted", name=name)
        return deleted

    async def resolve(self, name: str) -> tuple[Sequence, Group | None]:
        """A sequence by name, or the group of that name with the sequence that holds it."""
        sequence = await self.store.get(name)
        if sequence is not None:
            return sequence, None
        for seq in await self.store.list():
            group = seq.group(name)
            if group is not None:
                return seq, group
        raise NotFoundError(f"no saved sequence or group is named '{name}'")


def document_from(name: str | None, description: str, groups: Any, file: str | None) -> Any:
    """The document `create` saves, from `groups` or from `file`: exactly one of them."""
    if (groups is None) == (file is None):
        raise DslError([Problem(loc=("groups",), code="groups-and-file",
                                message="give either groups or file, exactly one of them")])
    if file is not None:
        doc = load_document_file(file)
        return {**doc, "name": name} if name is not None and isinstance(doc, dict) else doc
    return {"name": name, "description": description, "groups": groups}


def load_document_file(path: str) -> Any:
    from gui.core.parser import load_json_text

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise DslError([Problem(loc=("file",), code="bad-file",
                                message=f"cannot read the file {path}: {reason}")]) from None
    return load_json_text(text, ("file",))


def summary(sequence: Sequence) -> dict[str, Any]:
    """What `list` shows for one sequence: its name, description and signature."""
    sig: Signature = signature_of(sequence)
    return {
        "name": sequence.name,
        "description": sequence.description,
        "groups": [g.name for g in sequence.groups],
        "signature": {"inputs": {k: v.value for k, v in sig.inputs.items()},
                      "outputs": {k: v.value for k, v in sig.outputs.items()}},
    }


def dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
