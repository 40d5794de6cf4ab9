"""What the Sequences page does to saved sequences besides opening them: copy, import, describe.

A copy needs new group names as well as a new name, because a group name is unique across every
saved sequence (it is callable on its own): a copy and an import whose names are taken get free
ones (`name-2`), and the page says which. An imported file is checked exactly like a save, and
each problem is located in the file's text (line and column) so the list can say where it is.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from gui.core.door import Operations
from gui.core.sequences import (
    MAX_DOCUMENT_BYTES,
    NAMING_CODES,
    DslError,
    Problem,
    Renamed,
    Sequence,
    load_json_text,
    to_document,
    too_large,
)
from gui.core.sequences import with_free_names as renamed_free
from gui.i18n import _


async def with_free_names(engine: Operations, doc: dict[str, Any]) -> tuple[dict[str, Any], list[Renamed]]:
    """The document with every taken sequence or group name replaced by a free one (`name-2`)."""
    return renamed_free(doc, await engine.taken_names())


async def duplicate(engine: Operations, sequence: Sequence) -> tuple[Sequence, list[Renamed]]:
    """Save a copy with free names (`name-2`, its groups `group-2`), and what was renamed. DslError if refused."""
    doc, renamed = await with_free_names(engine, to_document(sequence))
    saved, _warnings = await engine.create(doc)
    return saved, renamed


@dataclass
class ImportCheck:
    """An imported file, checked: its document when it parses, and every problem with its place."""

    text: str
    doc: Any = None
    problems: list[Problem] = field(default_factory=list)
    exists: bool = False
    copy: dict[str, Any] | None = None  # the document with free names, when that would save
    renamed: list[Renamed] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def only_names_conflict(self) -> bool:
        return bool(self.errors) and all(p.code in NAMING_CODES for p in self.errors)

    @property
    def name(self) -> str:
        name = self.doc.get("name") if isinstance(self.doc, dict) else None
        return name if isinstance(name, str) else ""


async def check_import(engine: Operations, raw: bytes) -> ImportCheck:
    if len(raw) > MAX_DOCUMENT_BYTES:  # not read: the size limit of every sequence says so
        return ImportCheck(text="", problems=[too_large(len(raw))])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        problem = Problem(loc=(), code="bad-file", message=_("the file is not text (UTF-8): choose a .json file"))
        return ImportCheck(text="", problems=[problem])
    check = ImportCheck(text=text)
    try:
        check.doc = await asyncio.to_thread(load_json_text, text)  # up to 2 MB: not on the event loop
    except DslError as exc:
        check.problems = list(exc.problems)
        return check
    result = await engine.check(check.doc)
    check.problems = [*result.errors, *result.warnings]
    if check.name:
        check.exists = await engine.get(check.name) is not None
    if isinstance(check.doc, dict) and (check.exists or check.only_names_conflict):
        copy, renamed = await with_free_names(engine, check.doc)
        if renamed and (await engine.check(copy, as_new=True)).ok:
            check.copy, check.renamed = copy, renamed
    return check
