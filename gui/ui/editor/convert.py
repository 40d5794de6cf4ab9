"""From the seed's document (text view, import, a stored sequence) to the editor's draft.

Why it may refuse: the visual editor can hold many mistakes (an undeclared slot, a condition that
does not parse, a timeout of zero) but not every shape of JSON; `"in": ""` or a `tools` text with a
missing `;` has no field to show it in. Rather than guess and silently change what the person wrote,
`from_document` returns the reasons, and the editor stays in the text view and shows them.
"""

from __future__ import annotations

import re
from typing import Any

from gui.core.sequences import (
    ASKING_KEYS,
    SLOT_TYPE_NAMES,
    ConditionSyntaxError,
    Missing,
    OnError,
    Sequence,
    condition_rows,
    format_duration,
    parse_condition,
    parse_duration,
    split_tools,
    whole_reference,
)
from gui.core.sequences import to_document as sequence_document
from gui.i18n import _
from gui.ui.editor.draft import (
    ArgDraft,
    ConditionDraft,
    CondRow,
    GroupDraft,
    SequenceDraft,
    SlotRow,
    ToolDraft,
)

_GROUP_KEYS = {"name", "description", "in", "out", "when", "parallel", "missing", "timeout", "on_error", "tools",
               *ASKING_KEYS}
_TIMEOUT = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)$")


def from_sequence(sequence: Sequence) -> SequenceDraft:
    draft, reasons = from_document(sequence_document(sequence))
    assert draft is not None and not reasons, reasons
    return draft


def from_document(doc: Any) -> tuple[SequenceDraft | None, list[str]]:
    """The draft for `doc`, or None with the reasons the visual editor cannot show it."""
    reasons: list[str] = []
    if not isinstance(doc, dict):
        return None, [_('the text must be one JSON object: {"name": …, "description": …, "groups": […]}')]
    for key in doc:
        if key not in ("name", "description", "groups"):
            reasons.append(_('the field "{key}" is not part of a sequence (it has name, description, groups)').format(
                key=key))
    name = _text(doc, "name", _("the sequence"), reasons)
    description = _text(doc, "description", _("the sequence"), reasons)
    groups_value = doc.get("groups", [])
    if not isinstance(groups_value, list):
        reasons.append(_('"groups" must be a list: [{…}, {…}]'))
        groups_value = []
    groups = [_group(value, index, reasons) for index, value in enumerate(groups_value)]
    if reasons:
        return None, reasons
    return SequenceDraft(name=name, description=description, groups=[g for g in groups if g is not None]), []


def _text(obj: dict[str, Any], key: str, what: str, reasons: list[str]) -> str:
    value = obj.get(key, "")
    if not isinstance(value, str):
        reasons.append(_('the "{key}" of {what} must be text in quotes').format(key=key, what=what))
        return ""
    return value


def _group(value: Any, index: int, reasons: list[str]) -> GroupDraft | None:
    where = _("group {number}").format(number=index + 1)
    if not isinstance(value, dict):
        reasons.append(_("{where} must be an object {{…}}").format(where=where))
        return None
    for key in value:
        if key not in _GROUP_KEYS:
            reasons.append(_('{where}: the field "{key}" is not part of a group').format(where=where, key=key))
    group = GroupDraft(name=_text(value, "name", where, reasons),
                       description=_text(value, "description", where, reasons))
    group.inputs = _slots(value, "in", where, reasons)
    group.outputs = _slots(value, "out", where, reasons)
    group.when = _condition(value.get("when", "true"), where, reasons)
    parallel = value.get("parallel", True)
    if not isinstance(parallel, bool):
        reasons.append(_('{where}: "parallel" must be true or false, without quotes').format(where=where))
    else:
        group.parallel = parallel
    group.missing = _choice(value, "missing", [m.value for m in Missing], where, reasons)
    group.on_error = _choice(value, "on_error", [m.value for m in OnError], where, reasons)
    _timeout(value.get("timeout"), group, where, reasons)
    group.tools = _tools(value.get("tools", ""), where, reasons)
    group.asking = {key: value[key] for key in ASKING_KEYS if key in value}  # the validator checks them
    return group


def _slots(group: dict[str, Any], key: str, where: str, reasons: list[str]) -> list[SlotRow]:
    value = group.get(key, {})
    if not isinstance(value, dict):
        reasons.append(_('{where}: "{key}" must be an object like {{"host": "string"}}; for none write {{}}').format(
            where=where, key=key))
        return []
    rows = []
    for name, type_name in value.items():
        if type_name not in SLOT_TYPE_NAMES:
            reasons.append(_("{where}: the type of '{name}' must be one of {types}").format(
                where=where, name=name, types=", ".join(SLOT_TYPE_NAMES)))
            continue
        rows.append(SlotRow(name=name, type=type_name))
    return rows


def _condition(value: Any, where: str, reasons: list[str]) -> ConditionDraft:
    if not isinstance(value, str):
        reasons.append(_('{where}: "when" must be a condition in quotes, like "$args.n > 3"').format(where=where))
        return ConditionDraft()
    try:
        rows = condition_rows(parse_condition(value))
    except ConditionSyntaxError:
        rows = None
    if rows is None:
        return ConditionDraft(mode="text", text=value)
    items, joiner = rows
    return ConditionDraft(rows=[CondRow(arg=r["arg"], op=r["op"], value=r["value"]) for r in items],
                          joiner="or" if joiner == "or" else "and")


def _choice(group: dict[str, Any], key: str, choices: list[str], where: str, reasons: list[str]) -> str:
    value = group.get(key, choices[0])
    if value not in choices:
        reasons.append(_('{where}: "{key}" must be one of {choices}').format(where=where, key=key,
                                                                            choices=", ".join(choices)))
        return choices[0]
    return str(value)


def _timeout(value: Any, group: GroupDraft, where: str, reasons: list[str]) -> None:
    if value is None:
        return
    text = value.strip() if isinstance(value, str) else ""
    match = _TIMEOUT.match(text)
    if match is None and text:
        try:
            match = _TIMEOUT.match(format_duration(parse_duration(text)))
        except ValueError:
            match = None
    if match is None:
        reasons.append(_('{where}: the time limit "{value}" is not a number and a unit like 30s, 2m or 500ms').format(
            where=where, value=value))
        return
    group.timeout_amount = float(match.group(1))
    group.timeout_unit = match.group(2)


def _tools(value: Any, where: str, reasons: list[str]) -> list[ToolDraft]:
    if not isinstance(value, str):
        reasons.append(_('{where}: "tools" must be text (a string) holding {{…}} ; objects, not an array').format(
            where=where))
        return []
    raw_tools, problems = split_tools(value, ())
    for problem in problems:
        if problem.code != "empty-tools":
            reasons.append(_("{where}, tools: {problem}").format(where=where, problem=problem.text(_)))
    tools = []
    for index, raw in enumerate(raw_tools):
        obj = raw.value
        tool_where = _("{where}, tool {number}").format(where=where, number=index + 1)
        if not isinstance(obj, dict):
            reasons.append(_('{where} must be an object like {{"tool": "echo", "args": {{}}}}').format(
                where=tool_where))
            continue
        extra = [k for k in obj if k not in ("tool", "args", "as", *ASKING_KEYS)]
        if extra:
            reasons.append(_("{where}: unknown field {fields} (a tool has tool, args, as)").format(
                where=tool_where, fields=", ".join(extra)))
        name, args, slot = obj.get("tool"), obj.get("args", {}), obj.get("as")
        if not isinstance(name, str):
            reasons.append(_('{where}: "tool" must be the tool\'s name in quotes').format(where=tool_where))
            continue
        if not isinstance(args, dict):
            reasons.append(_('{where}: "args" must be an object like {{"command": "uptime"}}').format(
                where=tool_where))
            continue
        if slot is not None and not isinstance(slot, str):
            reasons.append(_('{where}: "as" must be a slot name in quotes').format(where=tool_where))
            continue
        tools.append(ToolDraft(tool=name, args={k: arg_draft(v) for k, v in args.items()}, save_to=slot,
                               asking={key: obj[key] for key in ASKING_KEYS if key in obj}))
    return tools


def arg_draft(value: Any) -> ArgDraft:
    """A stored argument value as the form holds it: `"$args.x"` exactly is a bound input."""
    ref = whole_reference(value) if isinstance(value, str) else None
    if ref is not None:
        return ArgDraft(mode="input", input=ref)
    return ArgDraft(value=value)
