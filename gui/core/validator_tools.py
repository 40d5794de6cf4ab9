"""The validator's checks of a group's `tools` (SPEC §1 rules 2, 3, 5, 8, and result types).

A mixin of the validator's `_Checker`: it reports through `error`/`warn` and reads `catalog` and
`written` (the slots earlier groups wrote), which the checker provides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gui.core.errors import Loc, Problem
from gui.core.model import SlotType, ToolCall
from gui.core.parser import split_tools
from gui.core.result_types import mismatch
from gui.core.substitution import references
from gui.core.tool_info import nearest_names

if TYPE_CHECKING:
    from gui.core.validator import CatalogView

_TOOL_FIELDS = ("tool", "args", "as")


class ToolChecks:
    catalog: CatalogView
    written: set[str]
    problems: list[Problem]

    def error(self, loc: Loc, code: str, message: str, offset: int | None = None) -> None:
        raise NotImplementedError

    def warn(self, loc: Loc, code: str, message: str, offset: int | None = None) -> None:
        raise NotImplementedError

    def _tools(self, group: dict[str, Any], loc: Loc, ins: dict[str, SlotType],
               outs: dict[str, SlotType]) -> list[ToolCall] | None:
        tloc: Loc = (*loc, "tools")
        if "tools" not in group:
            self.error(tloc, "missing-field", 'the group has no "tools": write them as one text, '
                       'like "{\\"tool\\":\\"echo\\",\\"args\\":{}} ;"')
            return None
        value = group["tools"]
        if not isinstance(value, str):
            self.error(tloc, "bad-type", '"tools" is text (a string), not an array: write '
                       '"{\\"tool\\":…} ; {\\"tool\\":…} ;" with a ";" after every object')
            return None
        raw_tools, problems = split_tools(value, tloc)
        self.problems.extend(problems)
        calls: list[ToolCall] = []
        writers: dict[str, list[int]] = {}
        for index, raw in enumerate(raw_tools):
            call = self._tool(raw.value, (*tloc, index), raw.offset, ins, outs)
            if call is None:
                continue
            calls.append(call)
            if call.as_ is not None and call.as_ in outs:
                writers.setdefault(call.as_, []).append(index)
        for slot in outs:
            if slot not in writers and slot not in self.written:
                self.warn((*loc, "out", slot), "unwritten-output",
                          f"no tool writes the output '{slot}' (here or in an earlier group): choose it in a tool's "
                          "\"Save result to\", or remove it; a run would end without it")
        self.written.update(writers)
        for slot, indexes in writers.items():
            if len(indexes) > 1 and outs[slot] is not SlotType.ARRAY:
                for index in indexes[1:]:
                    self.error((*tloc, index, "as"), "slot-written-twice",
                               f"slot '{slot}' is written by tools {', '.join(str(i + 1) for i in indexes)}: "
                               f'a {outs[slot].value} slot takes one writer; declare it "array" to collect them all')
        return calls

    def _tool(self, value: Any, loc: Loc, offset: int, ins: dict[str, SlotType],
              outs: dict[str, SlotType]) -> ToolCall | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self.error(loc, "bad-type", 'each tool is an object like {"tool":"echo","args":{…},"as":"slot"}', offset)
            return None
        ok = True
        for key in value:
            if key not in _TOOL_FIELDS:
                self.error((*loc, key), "unknown-field",
                           f"unknown field '{key}' in a tool: a tool has tool, args, as", offset)
                ok = False
        name = value.get("tool")
        if "tool" not in value:
            self.error((*loc, "tool"), "missing-field", 'the tool object has no "tool": name the tool to run', offset)
            ok = False
        elif not isinstance(name, str):
            self.error((*loc, "tool"), "bad-type", '"tool" is the tool name as text', offset)
            ok = False
        elif not name.strip():
            self.error((*loc, "tool"), "blank-name", '"tool" is blank: name the tool to run', offset)
            ok = False
        args = value.get("args", {})
        if not isinstance(args, dict):
            self.error((*loc, "args"), "bad-type", '"args" is an object like {"command": "uptime"}', offset)
            ok = False
            args = {}
        slot = value.get("as")
        if slot is not None and not isinstance(slot, str):
            self.error((*loc, "as"), "bad-type", '"as" names an output slot, as text', offset)
            ok = False
        elif isinstance(slot, str) and slot not in outs:
            self.error((*loc, "as"), "undeclared-slot",
                       f"slot '{slot}' is not declared in out: add \"{slot}\" to the group's \"out\", "
                       f"or use one of: {', '.join(outs) or '(none declared)'}", offset)
            ok = False
        refs = references(args)
        for path, ref, ref_offset in refs:
            if ref not in ins:
                self.error((*loc, "args", *path), "undeclared-arg",
                           f"$args.{ref} is not declared in this group's \"in\": add \"{ref}\" to \"in\"",
                           ref_offset)
                ok = False
        if ok and isinstance(name, str):
            self._known_tool(name, args, loc, offset, bool(refs))
            if isinstance(slot, str):
                self._result_fits(name, args, ins, slot, outs[slot], loc, offset)
        return ToolCall(tool=name, args=args, as_=slot) if ok else None

    def _result_fits(self, name: str, args: dict[str, Any], ins: dict[str, SlotType], slot: str,
                     declared: SlotType, loc: Loc, offset: int) -> None:
        """A result that can never fit its output is refused now, not after a person has answered."""
        known = self.catalog.result_type(name, args, ins) if self.catalog.result_type is not None else None
        if known is None or declared is SlotType.ARRAY:
            return
        title, got = known
        if got is not declared:
            self.error((*loc, "as"), "result-type", mismatch(title, got, slot, declared), offset)

    def _known_tool(self, name: str, args: dict[str, Any], loc: Loc, offset: int, has_refs: bool) -> None:
        exists = self.catalog.tool_exists
        if exists is None:
            return
        if not exists(name):
            near = nearest_names(name, self.catalog.tool_names()) if self.catalog.tool_names is not None else []
            hint = f" (did you mean {' or '.join(repr(n) for n in near)}? seq_tools lists them)" if near else ""
            self.warn((*loc, "tool"), "unknown-tool",
                      f"no tool named '{name}' is available now{hint}; if its server is offline the group's "
                      '"missing" rule decides at run time', offset)
            return
        if not has_refs and self.catalog.validate_args is not None:
            try:
                self.catalog.validate_args(name, args)
            except ValueError as exc:
                self.error((*loc, "args"), "bad-args", str(exc), offset)
