"""Checking and saving a draft with the core validator, the only judge of what may be stored.

The editor adds the checks the core cannot make from a document: draft-only mistakes (see
`draft.local_issues`); and a new or renamed sequence is checked "as new", so taking the name of
another saved one is a conflict (which `create` would otherwise quietly replace), reported with
the group names in one pass. A rename is checked as if the old sequence were gone (its group
names may be kept) and stored by replacing it; if the store refuses, the old one is put back, so
a failed save never loses a saved sequence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.door import Engine
from gui.core.sequences import DslError, Problem, Sequence, ValidationResult, free_names, load_json_text
from gui.core.tools import ToolInfo
from gui.i18n import _
from gui.ui.editor.draft import Issue, SequenceDraft, local_issues, to_document
from gui.ui.editor.issues import problem_issues


@dataclass
class Outcome:
    problems: list[Problem] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    doc: Any = None

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def blocking(self) -> bool:
        return bool(self.errors) or any(p.severity == "error" for p in self.problems)


async def _validate(engine: Engine, doc: Any, original: str | None) -> ValidationResult:
    """Checked as a new sequence (or a rename onto a new name): a saved sequence of the same name is
    a conflict, reported with the group names in one pass, never quietly replaced."""
    name = doc.get("name") if isinstance(doc, dict) else None
    return await engine.check(doc, replacing=original, as_new=name != original)


async def check_draft(engine: Engine, draft: SequenceDraft, original: str | None,
                      tools: Mapping[str, ToolInfo]) -> Outcome:
    """The draft checked by the core; each problem put on its field (`tools`: the editor's, to title
    the arguments of a tool whose arguments do not fit)."""
    doc, mapping = to_document(draft)
    result = await _validate(engine, doc, original)
    problems = [*result.errors, *result.warnings]
    issues = list(local_issues(draft))
    for problem in problems:
        issues.extend(problem_issues(problem, draft, mapping, tools))
    if any(p.code in free_names.NAMING_CODES for p in problems):
        issues = await _with_free_names(engine, draft, original, issues)
    return Outcome(problems=problems, issues=issues, doc=doc)


async def _with_free_names(engine: Engine, draft: SequenceDraft, original: str | None,
                           issues: list[Issue]) -> list[Issue]:
    """Each naming conflict also proposes a name nobody holds (`fetch-one-node-2`)."""
    taken = free_names.taken_names(s for s in await engine.sequence_trees() if s.name != original)
    taken |= {draft.name, *(g.name for g in draft.groups)}
    names = {"seq.name": draft.name, **{f"{g.uid}.name": g.name for g in draft.groups}}
    out = []
    for issue in issues:
        name = names.get(issue.key)
        if issue.code in free_names.NAMING_CODES and name:
            free = free_names.free_name(name, taken)
            taken.add(free)
            issue = dataclasses.replace(issue, message=_("{message} ('{free}' is free)").format(
                message=issue.message, free=free))
        out.append(issue)
    return out


async def check_text(engine: Engine, text: str, original: str | None) -> Outcome:
    try:
        doc = load_json_text(text)
    except DslError as exc:
        return Outcome(problems=list(exc.problems))
    result = await _validate(engine, doc, original)
    return Outcome(problems=[*result.errors, *result.warnings], doc=doc)


async def store(engine: Engine, doc: Any, original: Sequence | None) -> Sequence:
    """Save `doc` (DslError when the core refuses); a rename replaces the old sequence."""
    if original is None:
        return (await engine.create(doc)).sequence
    return (await engine.rename(original.name, doc)).sequence
