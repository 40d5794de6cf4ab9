"""The validator's checks of a group's `tools` (SPEC §1 rules 2, 3, 5, 8, and result types).

A collaborator the validator's checker holds: it reports into the checker's `Findings` and keeps
the slots the groups checked so far wrote.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gui.core.errors import Invalid, ToolArgumentError
from gui.core.marks import N_, Sentence, sentence, term, verbatim
from gui.core.sequences.asking import ASKING_KEYS, Asking
from gui.core.sequences.model import SlotType, ToolCall
from gui.core.sequences.names import nearest_names
from gui.core.sequences.parser import split_tools
from gui.core.sequences.problems import Findings, Loc
from gui.core.sequences.result_types import mismatch_words
from gui.core.sequences.shell import allowed, refusal, runs_as_words
from gui.core.sequences.substitution import references, shell_landings, shell_texts
from gui.core.sequences.validator_asking import check_asking

if TYPE_CHECKING:
    from gui.core.sequences.catalog_view import CatalogView

_TOOL_FIELDS = ("tool", "args", "as", "on", *ASKING_KEYS)
HOST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")  # a worker's `--name`, as its task queue holds it


class ToolChecks:
    """The checks of each group's `tools`, in document order: they report into the validator's
    `Findings` and remember the slots earlier groups wrote (`written`)."""

    def __init__(self, found: Findings, catalog: CatalogView) -> None:
        self.found = found
        self.catalog = catalog
        self.written: set[str] = set()  # slots written by the tools of the groups checked so far
        self._group_name: Any = None  # the `name` of the group being checked, as written

    def _group_label(self, loc: Loc) -> str | int:
        """The group being checked, for a person: its name, or its number when it has none."""
        name = self._group_name
        return name if isinstance(name, str) and name.strip() else int(loc[1]) + 1

    def check(self, group: dict[str, Any], loc: Loc, ins: dict[str, SlotType],
               outs: dict[str, SlotType], asking: Asking | None = None) -> list[ToolCall] | None:
        tloc: Loc = (*loc, "tools")
        self._group_name = group.get("name")
        if "tools" not in group:
            self.found.error(tloc, "missing-field",
                             N_('the group has no "tools": write them as one text, like {example}'),
                             example='"{\\"tool\\":\\"echo\\",\\"args\\":{}} ;"')
            return None
        value = group["tools"]
        if not isinstance(value, str):
            self.found.error(tloc, "bad-type",
                             N_('"tools" is text (a string), not an array: '
                                'write {example} with a ";" after every object'),
                             example='"{\\"tool\\":…} ; {\\"tool\\":…} ;"')
            return None
        raw_tools, problems = split_tools(value, tloc)
        self.found.extend(problems)
        calls: list[ToolCall] = []
        writers: dict[str, list[int]] = {}
        for index, raw in enumerate(raw_tools):
            call = self._tool(raw.value, (*tloc, index), raw.offset, ins, outs, asking)
            if call is None:
                continue
            calls.append(call)
            if call.as_ is not None and call.as_ in outs:
                writers.setdefault(call.as_, []).append(index)
        for slot in outs:
            if slot not in writers and slot not in self.written:
                self.found.warn((*loc, "out", slot), "unwritten-output",
                                N_("no tool writes the output '{slot}' (here or in an earlier group): "
                                   "choose it in a tool's \"Save result to\", or remove it; "
                                   "a run would end without it"),
                                slot=slot)
        self.written.update(writers)
        for slot, indexes in writers.items():
            if len(indexes) > 1 and outs[slot] is not SlotType.ARRAY:
                for index in indexes[1:]:
                    self.found.error((*tloc, index, "as"), "slot-written-twice",
                                     N_("slot '{slot}' is written by tools {tools}: "
                                        'a {type} slot takes one writer; declare it "array" to collect them all'),
                                     slot=slot, tools=", ".join(str(i + 1) for i in indexes), type=outs[slot].value)
        return calls

    def _tool(self, value: Any, loc: Loc, offset: int, ins: dict[str, SlotType],
              outs: dict[str, SlotType], group_asking: Asking | None = None) -> ToolCall | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self.found.error(loc, "bad-type", N_("each tool is an object like {example}"), offset,
                             example='{"tool":"echo","args":{…},"as":"slot"}')
            return None
        ok = True
        for key in value:
            if key not in _TOOL_FIELDS:
                self.found.error((*loc, key), "unknown-field",
                                 N_("unknown field '{key}' in a tool: a tool has tool, args, as, on, "
                                    "and who answers its requests ({fields})"),
                                 offset, key=key, fields=", ".join(ASKING_KEYS))
                ok = False
        name = value.get("tool")
        if "tool" not in value:
            self.found.error((*loc, "tool"), "missing-field", N_('the tool object has no "tool": name the tool to run'),
                             offset)
            ok = False
        elif not isinstance(name, str):
            self.found.error((*loc, "tool"), "bad-type", N_('"tool" is the tool name as text'), offset)
            ok = False
        elif not name.strip():
            self.found.error((*loc, "tool"), "blank-name", N_('"tool" is blank: name the tool to run'), offset)
            ok = False
        args = value.get("args", {})
        if not isinstance(args, dict):
            self.found.error((*loc, "args"), "bad-type", N_('"args" is an object like {example}'), offset,
                             example='{"command": "uptime"}')
            ok = False
            args = {}
        slot = value.get("as")
        if slot is not None and not isinstance(slot, str):
            self.found.error((*loc, "as"), "bad-type", N_('"as" names an output slot, as text'), offset)
            ok = False
        elif isinstance(slot, str) and slot not in outs:
            self.found.error((*loc, "as"), "undeclared-slot",
                             N_("slot '{slot}' is not declared in out: add \"{slot}\" to the group's \"out\", "
                                "or use one of: {names}"), offset, slot=slot,
                             names=", ".join(outs) or sentence(N_("(none declared)")))
            ok = False
        asking, asking_problems = check_asking(value, loc, offset, group_asking)
        self.found.extend(asking_problems)
        ok = ok and not any(p.severity == "error" for p in asking_problems)
        host = value.get("on")
        if host is not None and not self._host(host, name, loc, offset):
            ok = False
        refs = references(args)
        for path, ref, ref_offset in refs:
            if ref not in ins:
                self.found.error((*loc, "args", *path), "undeclared-arg",
                                 N_("$args.{name} is not declared in this group's \"in\": add \"{name}\" to \"in\""),
                                 ref_offset, name=ref)
                ok = False
        if ok and isinstance(name, str):
            self._known_tool(name, args, loc, offset, bool(refs))
            if refs:
                self._shell_text(name, args, loc, ins)
            if isinstance(slot, str):
                self._result_fits(name, args, ins, slot, outs[slot], loc, offset)
        return ToolCall(tool=name, args=args, as_=slot, asking=asking, on=host) if ok else None

    def _host(self, host: Any, tool: Any, loc: Loc, offset: int) -> bool:
        """A step's `on`: a host's name the team knows, for a tool a host can run; whether it is."""
        where: Loc = (*loc, "on")
        if not isinstance(host, str) or not HOST_NAME.match(host):
            self.found.error(where, "bad-host", N_('"on" names the host the step runs on, like {example}: 1 to 63 '
                                                   "letters, digits, '.', '_' and '-'"), offset, example='"node-a"')
            return False
        known = self.catalog.host_names
        if known is not None and host not in known:
            self.found.error(where, "unknown-host",
                             N_("no host named '{host}' is known: the hosts are {names} (a host is known once "
                                "`seqdesk worker --name {host}` has started there)"), offset, host=host,
                             names=", ".join(sorted(known)) or sentence(N_("(none yet)")))
            return False
        runs = self.catalog.runs_on_hosts
        if isinstance(tool, str) and runs is not None and not runs(tool):
            self.found.error(where, "not-on-hosts",
                             N_("'{tool}' cannot run on a host: a host runs the built-in tools cmd_run, file_read, "
                                "http_get, echo and sleep"), offset, tool=tool)
            return False
        return True

    def _result_fits(self, name: str, args: dict[str, Any], ins: dict[str, SlotType], slot: str,
                     declared: SlotType, loc: Loc, offset: int) -> None:
        """A result that can never fit its output is refused now, not after a person has answered."""
        known = self.catalog.result_type(name, args, ins) if self.catalog.result_type is not None else None
        if known is None and declared is not SlotType.ARRAY:
            self._text_result_fits(name, slot, declared, loc, offset)
        if known is None or declared is SlotType.ARRAY:
            return
        title, got = known
        if got is not declared:
            self.found.error((*loc, "as"), "result-type", mismatch_words(title, got, slot, declared), offset)

    def _text_result_fits(self, name: str, slot: str, declared: SlotType, loc: Loc, offset: int) -> None:
        """A tool whose server promised no result type gives back its text, an object only when it
        sends pictures, sounds or files with it, or a structured result it did not declare: a number
        or yes/no output is refused; an object output is saved (the tool may be one that sends them)
        with a warning that says the step fails when the result is text. Both where it is saved."""
        title = self.catalog.text_result(name) if self.catalog.text_result is not None else None
        if title is None or declared is SlotType.STRING:
            return
        if declared is SlotType.OBJECT:
            self.found.warn((*loc, "as"), "result-is-text",
                            N_("{tool} does not say what it gives back (its server gave no output schema), "
                               "so its result is text unless it sends pictures, sounds or files, or a structured "
                               "result, with it. When it gives back text, this step fails as it runs: the object "
                               "output '{slot}' cannot hold text. Make '{slot}' text (string) unless you know the tool "
                               "sends more"), offset,
                            tool=term(title), slot=slot)
            return
        self.found.error((*loc, "as"), "result-type",
                         N_("{tool} does not say what it gives back (its server gave no output schema): its result is "
                            "text, which the output '{slot}' cannot hold: make '{slot}' text (string)"), offset,
                         tool=term(title), slot=slot)

    def _shell_text(self, name: str, args: dict[str, Any], loc: Loc, ins: dict[str, SlotType]) -> None:
        """Inputs in shell text go only where they stay text (an error, located at the `$`), and one
        that a program runs as a command is warned of (`gui.core.sequences.shell.inputs`)."""
        shell = self.catalog.shell_args(name) if self.catalog.shell_args is not None else frozenset()
        for path, text in shell_texts(args, shell):
            for landing in shell_landings(text):
                where: Loc = (*loc, "args", *path)
                if not allowed(landing.place, number=ins.get(landing.name) is SlotType.NUMBER):
                    self.found.error(where, "input-in-shell-code", refusal(landing.place, landing.name), landing.offset)
                elif landing.runs_as is not None:
                    self.found.warn(where, "input-runs-as-command",
                                    runs_as_words(landing.name, landing.runs_as, whole=landing.whole), landing.offset)

    def _known_tool(self, name: str, args: dict[str, Any], loc: Loc, offset: int, has_refs: bool) -> None:
        """`unknown-tool` says no more than what is so: where the tools are listed differs by who
        reads it (the editor's "Add a tool", `seqdesk tools`, an agent's `seq_tools`): each surface says it."""
        exists = self.catalog.tool_exists
        if exists is None:
            return
        if not exists(name):
            near = nearest_names(name, self.catalog.tool_names()) if self.catalog.tool_names is not None else []
            if near:
                self.found.warn((*loc, "tool"), "unknown-tool",
                                N_("no tool named '{name}' is available now (did you mean {names}?); "
                                   'if its server is offline the group\'s "missing" rule decides at run time'), offset,
                                name=name, names=_either([repr(n) for n in near]))
            else:
                self.found.warn((*loc, "tool"), "unknown-tool",
                                N_("no tool named '{name}' is available now; if its server is offline the group's "
                                   '"missing" rule decides at run time'), offset, name=name)
            return
        if not has_refs and self.catalog.validate_args is not None:
            try:
                self.catalog.validate_args(name, args)
            except ValueError as exc:
                if isinstance(exc, ArgumentsError | ToolArgumentError):
                    words = argument_words(exc.tool, exc.problems, self._group_label(loc), int(loc[-1]) + 1)
                else:
                    said = getattr(exc, "words", None)
                    words = said if isinstance(said, Sentence) else verbatim(str(exc))
                self.found.error((*loc, "args"), "bad-args", words, offset)


def _either(names: list[str]) -> str | Sentence:
    """`'a' or 'b' or 'c'`, the "or" in the reader's words."""
    if len(names) == 1:
        return names[0]
    return sentence(N_("{first} or {rest}"), first=names[0], rest=_either(names[1:]))


# What pydantic says most often of a built-in tool's arguments (anything else is shown as it is).
_ARGUMENT_WORDS = {
    "Field required": N_("Field required"),
    "Extra inputs are not permitted": N_("Extra inputs are not permitted"),
    "Input should be a valid string": N_("Input should be a valid string"),
    "Input should be a valid integer": N_("Input should be a valid integer"),
    "Input should be a valid number": N_("Input should be a valid number"),
    "Input should be a valid boolean": N_("Input should be a valid boolean"),
    "Input should be a valid dictionary": N_("Input should be a valid dictionary"),
    "Input should be a valid list": N_("Input should be a valid list"),
    "String should have at least 1 character": N_("String should have at least 1 character"),
    "the arguments must be an object": N_("the arguments must be an object"),
}


class ArgumentsError(Invalid):
    """What `CatalogView.validate_args` raises: the English of a `ToolArgumentError`, with its tool
    and (argument path, reason) pairs, for the validator to word where it found them."""

    def __init__(self, exc: ToolArgumentError) -> None:
        super().__init__(str(exc))
        self.tool = exc.tool
        self.problems = exc.problems


# "in group 'check', tool 2 (cmd_run): the argument 'command' is missing"
_BAD_ARGS = N_("in group {group}, tool {number} ({tool}): {details}")
_MISSING_ARG = N_("the argument '{field}' is missing")
_EXTRA_ARG = N_("'{field}' is not one of its arguments: remove it")
_FIELD_REASON = N_("'{field}': {reason}")
_AND_MORE = N_("{first}; {rest}")
_MISSING, _EXTRA = "Field required", "Extra inputs are not permitted"


def argument_words(tool: str, problems: list[tuple[str, str]], group: str | int, number: int) -> Sentence:
    """What is wrong with a tool's arguments, and where: which argument of which tool of which group
    (its name quoted, or its number when it has none)."""
    parts: list[Sentence] = []
    for path, message in problems:
        if path and message == _MISSING:
            parts.append(sentence(_MISSING_ARG, field=path))
        elif path and message.startswith(_EXTRA):
            parts.append(sentence(_EXTRA_ARG, field=path))
        elif path:
            parts.append(sentence(_FIELD_REASON, field=path,
                                  reason=term(_ARGUMENT_WORDS.get(message, message))))  # a tool's own: if marked
        else:
            parts.append(term(_ARGUMENT_WORDS.get(message, message)))
    details: str | Sentence = ""
    for part in reversed(parts):
        details = part if details == "" else sentence(_AND_MORE, first=part, rest=details)
    return sentence(_BAD_ARGS, group=f"'{group}'" if isinstance(group, str) else group, number=number, tool=tool,
                    details=details)


def argument_problems(words: Sentence | None) -> list[tuple[str, str]]:
    """The (argument path, reason as the tool said it) pairs in the words of a `bad-args` problem
    (`argument_words`), so an editor can put each under its field; [] when the words are not those
    (a tool's own sentence, a problem read back from the HTTP API, which carries no words)."""
    if words is None or words.template != _BAD_ARGS:
        return []
    pairs: list[tuple[str, str]] = []
    details = dict(words.params).get("details")
    while isinstance(details, Sentence):
        part, details = ((dict(details.params).get("first"), dict(details.params).get("rest"))
                         if details.template == _AND_MORE else (details, None))
        if not isinstance(part, Sentence) or part.template not in (_FIELD_REASON, _MISSING_ARG, _EXTRA_ARG):
            return []
        field, reason = dict(part.params).get("field"), dict(part.params).get("reason")
        said = _MISSING if part.template == _MISSING_ARG else _EXTRA if part.template == _EXTRA_ARG else (
            reason.template if isinstance(reason, Sentence) else str(reason))
        pairs.append((field if isinstance(field, str) else "", said))
    return pairs
