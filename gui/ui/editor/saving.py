"""What the editor asks the door, and the door's answer as the editor shows it.

The door is the only judge of what may be stored, and a save asks it once: `save_draft` and `save_text`
send the document to `create` (a new sequence, `as_new`: taking the name of another saved sequence is
a conflict, never a quiet replacement) or to `rename` (a saved one, under the name it was opened
with: in one store operation, so a failed save never loses it). The door validates and stores in one
step, and answers the saved tree with its warnings, or every problem. `check_draft` and `check_text`
ask for the problems only: the re-checks as the person edits after a failed save, and the text view's
live check.

The editor adds what the core cannot see in a document: draft-only mistakes (`draft.local_issues`,
which keep a draft from being sent; it is checked instead, so every problem shows at once), each
problem placed on its field (`issues.problem_issues`), and a free name proposed for each naming
conflict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.door import Operations
from gui.core.sequences import (
    NAMING_CODES,
    DslError,
    InvalidSequenceError,
    Problem,
    Sequence,
    ValidationResult,
    free_name,
    load_json_text,
)
from gui.core.tools import ToolInfo
from gui.i18n import _
from gui.ui.editor.draft import DocumentMap, Issue, SequenceDraft, local_issues, to_document
from gui.ui.editor.issues import problem_issues


@dataclass
class Outcome:
    """The door's answer: every problem (errors and warnings), placed on the fields when it was a
    draft (`issues`); the saved tree after a save that was not refused (and the text view's document)."""

    problems: list[Problem] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    saved: Sequence | None = None
    doc: Any = None  # the document the text view sent


async def save_draft(engine: Operations, draft: SequenceDraft, original: str | None,
                     tools: Mapping[str, ToolInfo]) -> Outcome:
    """Save the draft (`original`: the name the editor opened), or say every problem (`tools`: the
    editor's, to title the arguments of a tool whose arguments do not fit)."""
    local = local_issues(draft)
    if local:  # a draft the document cannot show whole: checked, never sent
        return await _checked(engine, draft, original, local, tools)
    doc, mapping = to_document(draft)
    saved, problems = await _save(engine, doc, original)
    return Outcome(problems, await _placed(engine, problems, draft, mapping, original, [], tools), saved)


async def save_text(engine: Operations, text: str, original: str | None) -> Outcome:
    """Save the text view's document, or say every problem (a text that is not JSON is not sent)."""
    try:
        doc = load_json_text(text)
    except DslError as exc:
        return Outcome(problems=list(exc.problems))
    saved, problems = await _save(engine, doc, original)
    return Outcome(problems, saved=saved, doc=doc)


async def _save(engine: Operations, doc: Any, original: str | None) -> tuple[Sequence | None, list[Problem]]:
    """One call to the door: the saved tree and its warnings, or None and every problem."""
    try:
        saved = await (engine.create(doc, as_new=True) if original is None else engine.rename(original, doc))
    except InvalidSequenceError as exc:
        return None, [*exc.result.errors, *exc.result.warnings]
    except DslError as exc:
        return None, list(exc.problems)
    return saved.sequence, list(saved.warnings)


async def check_draft(engine: Operations, draft: SequenceDraft, original: str | None,
                      tools: Mapping[str, ToolInfo]) -> Outcome:
    """The draft checked by the door; each problem put on its field (`tools`: the editor's, to title
    the arguments of a tool whose arguments do not fit)."""
    return await _checked(engine, draft, original, local_issues(draft), tools)


async def _checked(engine: Operations, draft: SequenceDraft, original: str | None, local: list[Issue],
                   tools: Mapping[str, ToolInfo]) -> Outcome:
    doc, mapping = to_document(draft)
    result = await _check(engine, doc, original)
    problems = [*result.errors, *result.warnings]
    return Outcome(problems, await _placed(engine, problems, draft, mapping, original, local, tools))


async def check_text(engine: Operations, text: str, original: str | None) -> Outcome:
    try:
        doc = load_json_text(text)
    except DslError as exc:
        return Outcome(problems=list(exc.problems))
    result = await _check(engine, doc, original)
    return Outcome(problems=[*result.errors, *result.warnings])


async def _check(engine: Operations, doc: Any, original: str | None) -> ValidationResult:
    """Checked as `_save` would save it: a new name must be free, and a rename may keep its group names."""
    name = doc.get("name") if isinstance(doc, dict) else None
    return await engine.check(doc, replacing=original, as_new=name != original)


async def _placed(engine: Operations, problems: list[Problem], draft: SequenceDraft, mapping: DocumentMap,
                  original: str | None, local: list[Issue], tools: Mapping[str, ToolInfo]) -> list[Issue]:
    """The draft's own mistakes (`local`) and each problem on its field; a naming conflict proposes a free name."""
    issues = list(local)
    for problem in problems:
        issues.extend(problem_issues(problem, draft, mapping, tools))
    if any(p.code in NAMING_CODES for p in problems):
        issues = await _with_free_names(engine, draft, original, issues)
    return issues


async def _with_free_names(engine: Operations, draft: SequenceDraft, original: str | None,
                           issues: list[Issue]) -> list[Issue]:
    """Each naming conflict also proposes a name nobody holds (`fetch-one-node-2`)."""
    taken = await engine.taken_names(replacing=original)
    taken |= {draft.name, *(g.name for g in draft.groups)}
    names = {"seq.name": draft.name, **{f"{g.uid}.name": g.name for g in draft.groups}}
    out = []
    for issue in issues:
        name = names.get(issue.key)
        if issue.code in NAMING_CODES and name:
            free = free_name(name, taken)
            taken.add(free)
            issue = dataclasses.replace(issue, message=_("{message} ('{free}' is free)").format(
                message=issue.message, free=free))
        out.append(issue)
    return out
