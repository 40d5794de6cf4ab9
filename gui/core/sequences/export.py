"""Writing a stored tree back in the seed's text form.

Defaults are left out (a group that always runs has no `when`), so an exported document reads
like one a person wrote; text → tree → text is stable because the tree keeps everything that
matters and the writer is deterministic.
"""

from __future__ import annotations

import json
from typing import Any

from gui.core.sequences.model import Group, Missing, OnError, Sequence, ToolCall


def tool_to_text(call: ToolCall) -> str:
    obj: dict[str, Any] = {"tool": call.tool, "args": call.args}
    if call.as_ is not None:
        obj["as"] = call.as_
    if call.asking is not None:
        obj.update(call.asking.model_dump(mode="json"))
    if call.on is not None:
        obj["on"] = call.on
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def tools_to_text(tools: tuple[ToolCall, ...] | list[ToolCall]) -> str:
    return " ".join(f"{tool_to_text(t)} ;" for t in tools)


def group_to_document(group: Group) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": group.name}
    if group.description:
        doc["description"] = group.description
    doc["in"] = {k: v.value for k, v in group.in_.items()}
    doc["out"] = {k: v.value for k, v in group.out.items()}
    if group.when.strip() != "true":
        doc["when"] = group.when
    if not group.parallel:
        doc["parallel"] = False
    if group.missing is not Missing.FAIL:
        doc["missing"] = group.missing.value
    if group.timeout is not None:
        doc["timeout"] = group.timeout
    if group.on_error is not OnError.ABORT:
        doc["on_error"] = group.on_error.value
    if group.asking is not None:
        doc.update(group.asking.model_dump(mode="json"))
    doc["tools"] = tools_to_text(group.tools)
    return doc


def to_document(sequence: Sequence) -> dict[str, Any]:
    return {"name": sequence.name, "description": sequence.description,
            "groups": [group_to_document(g) for g in sequence.groups]}


def to_text(sequence: Sequence, indent: int | None = 2) -> str:
    """The seed's text form: pretty by default, one line with `indent=None`."""
    separators = None if indent is not None else (", ", ": ")
    return json.dumps(to_document(sequence), ensure_ascii=False, indent=indent, separators=separators)
