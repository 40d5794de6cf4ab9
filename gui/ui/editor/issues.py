"""From the validator's `loc` to the one field of the visual editor it concerns.

The validator speaks in document paths (`("groups", 1, "tools", 0, "as")`, or `("groups", 0,
"tools")` with a character offset); the editor's fields are keyed `<uid>.<field>`. Placing each
problem on its own field, never on the parent or a sibling, is what lets a person fix it where
they look. `bad-args` arrives as one message for the whole tool; the core's words for it name each
argument (`argument_problems`), so it is split into one issue per argument, in plain words ("Enter
a value for Command"), titled as the tool's schema (`list_tools`) titles them.
Every message is worded in the page's language: the core's from its marked template (`Problem.text`),
the editor's own through the catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gui.core.marks import Sentence
from gui.core.sequences import ASKING_KEYS, Problem, argument_problems
from gui.core.tools import ToolInfo
from gui.i18n import N_, _
from gui.ui.editor.draft import DocumentMap, GroupDraft, Issue, SequenceDraft, ToolDraft
from gui.wording.glossary import plain

# Where the core's message teaches the text format, the visual editor says it with its own words.
_VISUAL_WORDS = {
    "empty-tools": N_("Add at least one tool: a group needs something to run"),
    "no-groups": N_("Add at least one group"),
}

# Where the core's message leaves out where to look, the editor says where in the app.
_EDITOR_HINTS = {
    "unknown-tool": N_("“Add a tool” lists the tools you can use now; a server's tools join them once the "
                       "server is added and connected in Settings › MCP servers."),
}

# Where the core names a key of the format ("the group's "missing" rule"), the editor names the control that
# sets it, in the label's own words; the core's parameters (the tool's name, the names it may mean) are kept.
_UNKNOWN_TOOL = N_("no tool named '{name}' is available now; if its server is offline, the group's "
                   "“If a tool is not available” decides at run time")
_UNKNOWN_TOOL_NEAR = N_("no tool named '{name}' is available now (did you mean {names}?); if its server is "
                        "offline, the group's “If a tool is not available” decides at run time")


def _editor_words(problem: Problem) -> str | None:
    """The core's message in the editor's words, where they differ (None: the core's words, as they are)."""
    if problem.code != "unknown-tool" or problem.words is None:
        return None
    params = problem.words.params
    template = _UNKNOWN_TOOL_NEAR if "names" in dict(params) else _UNKNOWN_TOOL
    return Sentence(template, params).render(_)


_GROUP_FIELDS = ("name", "description", "when", "timeout", "parallel", "missing", "on_error", *ASKING_KEYS)


def problem_issues(problem: Problem, draft: SequenceDraft, mapping: DocumentMap,
                   tools: Mapping[str, ToolInfo] | None = None) -> list[Issue]:
    """The issues (usually one) that show `problem` on the editor's fields."""
    loc = problem.loc
    where = problem.where()
    visual = _(_VISUAL_WORDS[problem.code]) if problem.code in _VISUAL_WORDS else None

    def issue(key: str, group: GroupDraft | None = None, message: str | None = None, *, marks: bool = True) -> Issue:
        words = message or visual or _sentence(plain(_editor_words(problem) or problem.text(_), marks=marks))
        if problem.code in _EDITOR_HINTS:
            words = f"{words}. {_(_EDITOR_HINTS[problem.code])}"
        return Issue(key=key, message=words, severity=problem.severity,
                     group_uid=group.uid if group else None, code=problem.code, where=where)

    if not loc:
        return [issue("seq.document")]
    if loc[0] != "groups":
        return [issue(f"seq.{loc[0]}" if loc[0] in ("name", "description") else "seq.document")]
    if len(loc) < 2 or not isinstance(loc[1], int) or loc[1] >= len(draft.groups):
        return [issue("seq.groups")]
    gi = loc[1]
    group = draft.groups[gi]
    if len(loc) == 2:
        return [issue(f"{group.uid}.card", group)]
    field = loc[2]
    if field == "when" and problem.code == "undeclared-arg":
        name = _read_name(problem.message)
        rule = next((r for r in group.when.rows if r.arg == name), None) if group.when.mode == "rows" else None
        return [issue(f"{rule.uid}.arg" if rule else f"{group.uid}.when", group,
                      _("The condition reads '{name}', which is not an input of this group: add it under Inputs, "
                        "or choose one of its inputs").format(name=name))]
    if field in _GROUP_FIELDS:
        # A condition written as text is in the format: its problems name inputs as that box takes
        # them ($args.host), not as the argument boxes show them (⤷host, which a condition refuses).
        as_text = field == "when" and group.when.mode == "text"
        return [issue(f"{group.uid}.{field}", group, marks=not as_text)]
    if field in ("in", "out"):
        rows = group.inputs if field == "in" else group.outputs
        if len(loc) >= 4:
            row = next((r for r in rows if r.name == loc[3]), None)
            if row is not None:
                part = "type" if problem.code == "bad-enum" else "name"
                return [issue(f"{row.uid}.{part}", group)]
        return [issue(f"{group.uid}.{field}", group)]
    if field != "tools":
        return [issue(f"{group.uid}.card", group)]
    tool_index: int | None = loc[3] if len(loc) > 3 and isinstance(loc[3], int) else None
    if tool_index is None and problem.offset is not None and group.tools and problem.code != "empty-tools":
        tool_index = mapping.tool_at(gi, problem.offset)
    if tool_index is None or tool_index >= len(group.tools):
        return [issue(f"{group.uid}.tools", group)]
    tool = group.tools[tool_index]
    rest = loc[4:]
    if rest[:1] == ("as",):
        message = None
        if problem.code == "undeclared-slot" and tool.save_to:
            message = _("'{name}' is not an output of this group: add it under Outputs, "
                        "or choose another place to save the result").format(name=tool.save_to)
        return [issue(f"{tool.uid}.as", group, message)]
    if rest[:1] == ("args",) and len(rest) >= 2:
        return [issue(f"{tool.uid}.arg.{rest[1]}", group)]
    if rest[:1] == ("args",) and problem.code == "bad-args":
        split = _split_bad_args(tool, problem, tools or {})
        if split:
            return [issue(key, group, message) for key, message in split]
    return [issue(f"{tool.uid}.tool", group)]


def _split_bad_args(tool: ToolDraft, problem: Problem, tools: Mapping[str, ToolInfo]) -> list[tuple[str, str]]:
    found = tools.get(tool.tool)
    if found is None:
        return []
    titles = _titles(found.input_schema)
    out = []
    for path, message in argument_problems(problem.words):
        name = path.split(".")[0] if path else ""
        key = f"{tool.uid}.arg.{name}" if name in titles else f"{tool.uid}.tool"
        out.append((key, _arg_message(message, _(titles.get(name, name)))))
    return out


def _titles(schema: dict[str, Any]) -> dict[str, str]:
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {name: str(spec.get("title") or name) for name, spec in props.items() if isinstance(spec, dict)}


def _arg_message(message: str, title: str) -> str:
    lowered = message.lower()
    if lowered == "field required":
        return _("Enter a value for {title}").format(title=title)
    if lowered.startswith("extra inputs are not permitted"):
        return _("{title} is not an argument of this tool: remove it").format(title=title)
    return _sentence(_(message))  # pydantic's own words: the catalogue holds the common ones


def _read_name(message: str) -> str:
    """The input name in the core's "reads $args.<name>" message."""
    marker = "$args."
    start = message.find(marker)
    if start < 0:
        return "?"
    start += len(marker)
    end = start
    while end < len(message) and (message[end].isalnum() or message[end] == "_"):
        end += 1
    return message[start:end]


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] if message else message
