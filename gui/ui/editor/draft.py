"""The editor's draft: what the person is building, including states the validator would reject.

Why a model apart from the stored `Sequence`: that tree is frozen and always valid, while someone
typing has a group without a name, two inputs with one name, half-written JSON in an argument.
The draft keeps every character of that, turns itself into the seed's document for the core
validator (`to_document`, which also says where each tool starts inside its `tools` text so
that text offsets can be pointed back at a tool row), and reports the few problems only it can
see (`local_issues`), such as an input row with no name, which a JSON object cannot even hold.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from gui.core.errors import Invalid
from gui.core.sequences import arg_ref, rows_to_text
from gui.i18n import _


def new_uid() -> str:
    return uuid.uuid4().hex[:10]


class SlotRow(BaseModel):
    """One input or output: a name and one of the five types."""

    uid: str = Field(default_factory=new_uid)
    name: str = ""
    type: str = "string"


class ArgDraft(BaseModel):
    """One argument of a tool: a typed value, raw text (JSON or free text), or a bound input."""

    mode: Literal["value", "input"] = "value"
    value: Any = None
    text: str | None = None
    as_json: bool = False
    input: str | None = None


class ToolDraft(BaseModel):
    uid: str = Field(default_factory=new_uid)
    tool: str
    args: dict[str, ArgDraft] = Field(default_factory=dict)
    save_to: str | None = None
    # Who answers this step's requests, as written (`gui.core.sequences.asking`: approvers, required, …).
    asking: dict[str, Any] = Field(default_factory=dict)


class CondRow(BaseModel):
    """`$args.<arg> <op> <value>`: one line of the condition builder."""

    uid: str = Field(default_factory=new_uid)
    arg: str | None = None
    op: str = "=="
    value: Any = None


class ConditionDraft(BaseModel):
    mode: Literal["rows", "text"] = "rows"
    rows: list[CondRow] = Field(default_factory=list)
    joiner: Literal["and", "or"] = "and"
    text: str = ""


class GroupDraft(BaseModel):
    uid: str = Field(default_factory=new_uid)
    name: str = ""
    description: str = ""
    inputs: list[SlotRow] = Field(default_factory=list)
    outputs: list[SlotRow] = Field(default_factory=list)
    when: ConditionDraft = Field(default_factory=ConditionDraft)
    parallel: bool = True
    missing: str = "fail"
    on_error: str = "abort"
    timeout_amount: float | None = None
    timeout_unit: str = "s"
    tools: list[ToolDraft] = Field(default_factory=list)
    # Who answers the group's requests, as written (`gui.core.sequences.asking`): checked by the validator.
    asking: dict[str, Any] = Field(default_factory=dict)

    def declared(self, which: Literal["in", "out"]) -> dict[str, str]:
        """Named slots, first row wins (a repeated name is a local issue on the later row)."""
        out: dict[str, str] = {}
        for row in self.inputs if which == "in" else self.outputs:
            if row.name.strip() and row.name not in out:
                out[row.name] = row.type
        return out


class SequenceDraft(BaseModel):
    name: str = ""
    description: str = ""
    groups: list[GroupDraft] = Field(default_factory=list)


@dataclass(frozen=True)
class Issue:
    """A problem placed on one field of the editor (`key` is `<uid>.<field>`)."""

    key: str
    message: str
    group_uid: str | None = None
    severity: Literal["error", "warning"] = "error"
    code: str = "editor"
    where: str = ""


@dataclass
class DocumentMap:
    """For each group, where each tool's object starts in the group's generated `tools` text."""

    tool_offsets: list[list[int]] = field(default_factory=list)

    def tool_at(self, group_index: int, offset: int) -> int | None:
        if group_index >= len(self.tool_offsets):
            return None
        starts = self.tool_offsets[group_index]
        best = None
        for index, start in enumerate(starts):
            if start <= offset:
                best = index
        return best


class _Invalid(Invalid):
    pass


def arg_value(arg: ArgDraft) -> Any:
    """The JSON value an argument contributes, or None when it is left out. _Invalid on bad JSON."""
    if arg.mode == "input":
        return arg_ref(arg.input) if arg.input else None
    if arg.text is not None:
        if not arg.text.strip():
            return None
        if not arg.as_json:
            return arg.text
        try:
            return json.loads(arg.text)
        except json.JSONDecodeError as exc:
            raise _Invalid(_("this is not valid JSON: {error} (line {line}, column {column})").format(
                error=exc.msg, line=exc.lineno, column=exc.colno)) from None
    if isinstance(arg.value, str) and not arg.value.strip():
        return None
    if isinstance(arg.value, float) and arg.value.is_integer():
        return int(arg.value)
    return arg.value


def tool_args(tool: ToolDraft) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, arg in tool.args.items():
        try:
            value = arg_value(arg)
        except _Invalid:
            continue
        if value is not None:
            out[name] = value
    return out


def timeout_text(group: GroupDraft) -> str | None:
    if group.timeout_amount is None:
        return None
    amount = group.timeout_amount
    shown = str(int(amount)) if float(amount).is_integer() else f"{amount:g}"
    return f"{shown}{group.timeout_unit}"


def condition_text(cond: ConditionDraft) -> str:
    if cond.mode == "text":
        return cond.text if cond.text.strip() else "true"
    rows = [{"arg": r.arg, "op": r.op, "value": r.value} for r in cond.rows
            if r.arg and r.value is not None]
    try:
        return rows_to_text(rows, cond.joiner)
    except ValueError:
        return "true"


def group_document(group: GroupDraft, offsets: list[int] | None = None) -> dict[str, Any]:
    """The group in the seed's form, defaults left out as `export` does."""
    doc: dict[str, Any] = {"name": group.name}
    if group.description:
        doc["description"] = group.description
    doc["in"] = group.declared("in")
    doc["out"] = group.declared("out")
    when = condition_text(group.when)
    if when.strip() != "true":
        doc["when"] = when
    if not group.parallel:
        doc["parallel"] = False
    if group.missing != "fail":
        doc["missing"] = group.missing
    timeout = timeout_text(group)
    if timeout is not None:
        doc["timeout"] = timeout
    if group.on_error != "abort":
        doc["on_error"] = group.on_error
    doc.update({key: value for key, value in group.asking.items() if value not in (None, "", [])})
    pieces: list[str] = []
    position = 0
    for tool in group.tools:
        obj: dict[str, Any] = {"tool": tool.tool, "args": tool_args(tool)}
        if tool.save_to is not None:
            obj["as"] = tool.save_to
        obj.update({key: value for key, value in tool.asking.items() if value not in (None, "", [])})
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + " ;"
        if offsets is not None:
            offsets.append(position)
        pieces.append(text)
        position += len(text) + 1
    doc["tools"] = " ".join(pieces)
    return doc


def to_document(draft: SequenceDraft) -> tuple[dict[str, Any], DocumentMap]:
    mapping = DocumentMap()
    groups = []
    for group in draft.groups:
        offsets: list[int] = []
        groups.append(group_document(group, offsets))
        mapping.tool_offsets.append(offsets)
    return {"name": draft.name, "description": draft.description, "groups": groups}, mapping


def local_issues(draft: SequenceDraft) -> list[Issue]:
    """What the draft knows is wrong before the validator sees it (the document cannot show these)."""
    issues: list[Issue] = []
    for group in draft.groups:
        gid = group.uid
        for which, rows in (("input", group.inputs), ("output", group.outputs)):
            seen: set[str] = set()
            for row in rows:
                if not row.name.strip():
                    issues.append(Issue(f"{row.uid}.name", _("Give this input a name") if which == "input"
                                        else _("Give this output a name"), gid))
                elif row.name in seen:
                    taken = _("'{name}' is already an input of this group: use another name") if which == "input" \
                        else _("'{name}' is already an output of this group: use another name")
                    issues.append(Issue(f"{row.uid}.name", taken.format(name=row.name), gid))
                seen.add(row.name)
        if group.when.mode == "rows":
            for cond_row in group.when.rows:
                if not cond_row.arg:
                    issues.append(Issue(f"{cond_row.uid}.arg", _("Choose the input this rule looks at"), gid))
                if cond_row.value is None:
                    issues.append(Issue(f"{cond_row.uid}.value", _("Enter the value to compare with"), gid))
        for tool in group.tools:
            for name, arg in tool.args.items():
                if arg.mode == "input" and not arg.input:
                    issues.append(Issue(f"{tool.uid}.arg.{name}", _("Choose an input, or switch to Type a value"), gid))
                    continue
                try:
                    arg_value(arg)
                except _Invalid as exc:
                    issues.append(Issue(f"{tool.uid}.arg.{name}", str(exc), gid))
    return issues


def _drop_uids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_uids(v) for k, v in value.items() if k != "uid"}
    if isinstance(value, list):
        return [_drop_uids(v) for v in value]
    return value


def clone_group(group: GroupDraft) -> GroupDraft:
    """A copy with fresh uids (so its fields and errors are its own)."""
    return GroupDraft.model_validate(_drop_uids(group.model_dump()))
