"""What the Sequences page does to saved sequences besides opening them: copy, import, describe.

A copy needs new group names as well as a new name, because a group name is unique across every
saved sequence (it is callable on its own). An imported file is checked exactly like a save, and
each problem is located in the file's text (line and column) so the list can say where it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gui.core.engine import Engine
from gui.core.errors import DslError, Problem
from gui.core.export import to_document
from gui.core.model import Sequence
from gui.core.parser import load_json_text
from gui.ui.editor.textpos import line_col, locate


def _unique(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    number = 2
    while f"{base} {number}" in taken:
        number += 1
    return f"{base} {number}"


async def taken_names(engine: Engine) -> set[str]:
    taken: set[str] = set()
    for sequence in await engine.sequence_trees():
        taken.add(sequence.name)
        taken.update(g.name for g in sequence.groups)
    return taken


async def duplicate(engine: Engine, sequence: Sequence) -> Sequence:
    """Save a copy named "<name> copy" whose groups are renamed the same way. DslError if refused."""
    taken = await taken_names(engine)
    doc = to_document(sequence)
    doc["name"] = _unique(f"{sequence.name} copy", taken)
    taken.add(doc["name"])
    for group in doc["groups"]:
        group["name"] = _unique(f"{group['name']} copy", taken)
        taken.add(group["name"])
    saved, _ = await engine.create(doc)
    return saved


@dataclass
class ImportCheck:
    """An imported file, checked: its document when it parses, and every problem with its place."""

    text: str
    doc: Any = None
    problems: list[Problem] = field(default_factory=list)
    exists: bool = False

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def name(self) -> str:
        name = self.doc.get("name") if isinstance(self.doc, dict) else None
        return name if isinstance(name, str) else ""

    def where(self, problem: Problem) -> str:
        start, _ = locate(self.text, problem)
        line, column = line_col(self.text, start)
        return f"line {line}, column {column}"


async def check_import(engine: Engine, raw: bytes) -> ImportCheck:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        problem = Problem(loc=(), code="bad-file", message="the file is not text (UTF-8): choose a .json file")
        return ImportCheck(text="", problems=[problem])
    check = ImportCheck(text=text)
    try:
        check.doc = load_json_text(text)
    except DslError as exc:
        check.problems = list(exc.problems)
        return check
    result = await engine.check(check.doc)
    check.problems = [*result.errors, *result.warnings]
    if check.name:
        check.exists = await engine.get(check.name) is not None
    return check
