"""Static validation of a sequence document: every rule of SPEC §1, all problems at once.

`check_document` takes the seed's JSON document (text or an already-decoded value) and returns a
`ValidationResult`: the frozen tree when there are no errors, every error and warning with its
`loc`, `code`, message and (for text fields) offset, and the signature. Nothing here runs a tool;
the catalog of saved sequences comes in as a `CatalogView` so that group-name uniqueness and
`seq_call` cycles can be checked across sequences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from gui.core.marks import N_, Sentence, sentence, verbatim
from gui.core.sequences import limits
from gui.core.sequences.asking import ASKING_KEYS
from gui.core.sequences.calls import cycle_problems
from gui.core.sequences.catalog_view import CatalogView
from gui.core.sequences.conditions import ConditionSyntaxError, parse_condition
from gui.core.sequences.durations import parse_duration
from gui.core.sequences.model import SLOT_TYPE_NAMES, Group, Missing, OnError, Sequence, Signature, SlotType
from gui.core.sequences.names import is_valid_name
from gui.core.sequences.parser import load_json_text
from gui.core.sequences.problems import DslError, Findings, Loc, Problem, problem
from gui.core.sequences.signature import signature_problems
from gui.core.sequences.unicode_check import surrogate_loc
from gui.core.sequences.validator_asking import check_asking
from gui.core.sequences.validator_tools import ToolChecks

_SEQ_FIELDS = ("name", "description", "groups")
# What `_name` says of a missing, non-text, blank or padded name, for a sequence and for a group.
_NAME_WORDS = {
    "sequence": (N_('the sequence has no "name": give it one'), N_("the sequence name must be text"),
                 N_("the sequence name is blank: give it a name"),
                 N_("the sequence name '{value}' starts or ends with spaces: remove them")),
    "group": (N_('the group has no "name": give it one'), N_("the group name must be text"),
              N_("the group name is blank: give it a name"),
              N_("the group name '{value}' starts or ends with spaces: remove them")),
}
_GROUP_FIELDS = ("name", "description", "in", "out", "when", "parallel", "missing", "timeout", "on_error", "tools",
                 *ASKING_KEYS)


class ValidationResult(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    sequence: Sequence | None = None
    errors: list[Problem]
    warnings: list[Problem]
    signature: Signature | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        sig = self.signature or Signature()
        return {
            "ok": self.ok,
            "errors": [p.to_json() for p in self.errors],
            "warnings": [p.to_json() for p in self.warnings],
            "signature": {"inputs": {k: v.value for k, v in sig.inputs.items()},
                          "outputs": {k: v.value for k, v in sig.outputs.items()}},
        }

    def raise_for_errors(self) -> Sequence:
        if self.sequence is None or self.errors:
            raise InvalidSequenceError(self)
        return self.sequence


class InvalidSequenceError(DslError):
    """A document that does not validate, with the whole result (warnings, signature) it got."""

    code = "invalid-sequence"

    def __init__(self, result: ValidationResult) -> None:
        super().__init__(result.errors)
        self.result = result


def names_or_none(names: Mapping[str, object]) -> str | Sentence:
    """`host, port`, or "(none declared)" in the reader's words."""
    return ", ".join(names) or sentence(N_("(none declared)"))


def check_text(text: str, catalog: CatalogView | None = None) -> ValidationResult:
    too_large = limits.text_problem(text)
    if too_large is not None:
        return ValidationResult(errors=[too_large], warnings=[])
    try:
        doc = load_json_text(text)
    except DslError as exc:
        return ValidationResult(errors=exc.errors, warnings=[])
    return check_document(doc, catalog)


def check_document(doc: Any, catalog: CatalogView | None = None) -> ValidationResult:
    """Validate a decoded document; never raises (every problem is in the result). A document over
    the limits (`gui.core.sequences.limits`) gets that one problem, and is not read further."""
    too_large = limits.document_problem(doc)
    if too_large is not None:
        return ValidationResult(errors=[too_large], warnings=[])
    bad_text = surrogate_loc(doc)
    if bad_text is not None:
        found = problem(bad_text, "not-unicode",
                        N_("this text is not valid Unicode (it holds a lone surrogate such as \\ud800)"))
        return ValidationResult(errors=[found], warnings=[])
    try:
        result = _Checker(catalog or CatalogView()).check(doc)
    except RecursionError:
        found = problem((), "invalid-json", N_("the document is nested too deeply"))
        return ValidationResult(errors=[found], warnings=[])
    too_many = limits.tools_problem([len(g.tools) for g in result.sequence.groups]) if result.sequence else None
    if too_many is not None:
        return ValidationResult(errors=[too_many], warnings=result.warnings, signature=result.signature)
    return result


def parse_sequence(source: str | Mapping[str, Any], catalog: CatalogView | None = None) -> Sequence:
    """The validated tree, or DslError carrying every error."""
    result = check_text(source, catalog) if isinstance(source, str) else check_document(source, catalog)
    return result.raise_for_errors()


class _Checker:
    def __init__(self, catalog: CatalogView) -> None:
        self.catalog = catalog
        self.found = Findings()
        self.tools = ToolChecks(self.found, catalog)

    def check(self, doc: Any) -> ValidationResult:
        sequence = self._sequence(doc)
        signature = None
        if sequence is not None:
            sig, sig_problems = signature_problems(sequence)
            self.found.problems.extend(sig_problems)
            signature = sig
            self.found.problems.extend(cycle_problems(sequence, self.catalog.calls))
        errors = [p for p in self.found.problems if p.severity == "error"]
        warnings = [p for p in self.found.problems if p.severity == "warning"]
        return ValidationResult(sequence=None if errors else sequence, errors=errors, warnings=warnings,
                                signature=signature)

    # -- document -------------------------------------------------------------------------------
    def _sequence(self, doc: Any) -> Sequence | None:
        if not isinstance(doc, dict):
            self.found.error((), "bad-type", N_("a sequence is a JSON object: {example}"),
                             example='{"name": …, "description": …, "groups": […]}')
            return None
        for key in doc:
            if key == "file":
                self.found.error(("file",), "groups-and-file" if "groups" in doc else "unknown-field",
                                 N_("give either groups or file, not both") if "groups" in doc else
                                 N_("'file' is read by create: a document itself must hold its groups"))
            elif key not in _SEQ_FIELDS:
                self.found.error((key,), "unknown-field",
                                 N_("unknown field '{key}': a sequence has name, description, groups"), key=key)
        name = self._name(doc, ("name",), "sequence")
        owner = self.catalog.group_owner.get(name) if name is not None else None
        if owner is not None and owner != name:
            self.found.error(("name",), "duplicate-name",
                             N_("'{name}' is already the name of a group in the saved sequence "
                                "'{owner}': a call by this name would be ambiguous; choose another name"),
                             name=name, owner=owner)
        elif self.catalog.as_new and name is not None and name in self.catalog.sequence_names:
            self.found.error(("name",), "name-taken", N_("a sequence named '{name}' is already saved: choose another "
                             "name, or open that one to edit it"), name=name)
        description = self._text(doc, "description", ("description",))
        groups_value = doc.get("groups")
        if "groups" not in doc:
            if "file" not in doc:
                self.found.error(("groups",), "missing-field",
                                 N_('the sequence has no "groups": add at least one group'))
            return None
        if not isinstance(groups_value, list):
            self.found.error(("groups",), "bad-type", N_('"groups" must be an array of group objects: {example}'),
                             example="[{…}, {…}]")
            return None
        if not groups_value:
            self.found.error(("groups",), "no-groups", N_('"groups" is empty: add at least one group'))
            return None
        groups: list[Group | None] = [self._group(g, i) for i, g in enumerate(groups_value)]
        self._group_names(groups_value, name)
        if name is None or any(g is None for g in groups):
            return None
        return Sequence(name=name, description=description, groups=tuple(g for g in groups if g is not None))

    def _name(self, obj: dict[str, Any], loc: Loc, what: str) -> str | None:
        words = _NAME_WORDS[what]
        if "name" not in obj:
            self.found.error(loc, "missing-field", words[0])
            return None
        value = obj["name"]
        if not isinstance(value, str):
            self.found.error(loc, "bad-type", words[1])
            return None
        if not value.strip():
            self.found.error(loc, "blank-name", words[2])
            return None
        if value != value.strip():
            self.found.error(loc, "blank-name", words[3], value=value)
            return None
        return value

    def _text(self, obj: dict[str, Any], key: str, loc: Loc, default: str = "") -> str:
        value = obj.get(key, default)
        if not isinstance(value, str):
            self.found.error(loc, "bad-type", N_('"{key}" must be text'), key=key)
            return default
        return value

    def _group_names(self, groups: list[Any], sequence_name: str | None) -> None:
        seen: dict[str, int] = {}
        for index, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("name"), str):
                continue
            name = group["name"]
            if name in seen:
                self.found.error(("groups", index, "name"), "duplicate-group",
                                 N_("group name '{name}' is already used by group {number}: group names are unique"),
                                 name=name, number=seen[name] + 1)
                continue
            seen[name] = index
            owner = self.catalog.group_owner.get(name)
            if owner is not None and (owner != sequence_name or self.catalog.as_new):
                self.found.error(("groups", index, "name"), "duplicate-group",
                                 N_("group name '{name}' is already used in the saved sequence '{owner}': "
                                    "group names are unique across all sequences; choose another"),
                                 name=name, owner=owner)
            elif name in self.catalog.sequence_names and name != sequence_name:
                self.found.error(("groups", index, "name"), "duplicate-group",
                                 N_("'{name}' is already the name of a saved sequence: choose another group name"),
                                 name=name)

    # -- group ----------------------------------------------------------------------------------
    def _group(self, value: Any, index: int) -> Group | None:
        loc: Loc = ("groups", index)
        if not isinstance(value, dict):
            self.found.error(loc, "bad-type", N_("each group is a JSON object with name, in, out, tools, …"))
            return None
        before = len(self.found.problems)
        for key in value:
            if key not in _GROUP_FIELDS:
                self.found.error((*loc, key), "unknown-field", N_("unknown field '{key}': a group has {fields}"),
                                 key=key, fields=", ".join(_GROUP_FIELDS))
        name = self._name(value, (*loc, "name"), "group")
        description = self._text(value, "description", (*loc, "description"))
        ins = self._slots(value, "in", loc)
        outs = self._slots(value, "out", loc)
        when = self._when(value, loc, ins)
        parallel = value.get("parallel", True)
        if not isinstance(parallel, bool):
            self.found.error((*loc, "parallel"), "bad-type", N_('"parallel" is true or false (no quotes)'))
        missing = self._enum(value, "missing", loc, Missing, Missing.FAIL)
        on_error = self._enum(value, "on_error", loc, OnError, OnError.ABORT)
        timeout = self._timeout(value, loc)
        asking, asking_problems = check_asking(value, loc)
        self.found.problems.extend(asking_problems)
        tools = self.tools.check(value, loc, ins, outs, asking)
        if len(self.found.problems) != before and any(p.severity == "error" for p in self.found.problems[before:]):
            return None
        assert name is not None and tools is not None
        return Group(name=name, description=description, in_=ins, out=outs, when=when, parallel=parallel,
                     missing=missing, timeout=timeout, on_error=on_error, tools=tuple(tools), asking=asking)

    def _slots(self, group: dict[str, Any], key: str, loc: Loc) -> dict[str, SlotType]:
        code = "in-not-object" if key == "in" else "out-not-object"
        example = '{"host": "string"}' if key == "in" else '{"summary": "string"}'
        if key not in group:
            return {}
        value = group[key]
        if isinstance(value, str):
            self.found.error((*loc, key), code, N_('"{key}" must be an object like {example}, not text; '
                             'for none write {{}} (without quotes)'), key=key, example=example)
            return {}
        if not isinstance(value, dict):
            self.found.error((*loc, key), code, N_('"{key}" must be an object like {example}; for none write {{}}'),
                             key=key, example=example)
            return {}
        slots: dict[str, SlotType] = {}
        for slot, type_name in value.items():
            if not is_valid_name(slot):
                self.found.error((*loc, key, slot), "bad-name",
                                 N_("'{slot}' is not a usable name: use letters, digits and _, starting with a letter"),
                                 slot=slot)
                continue
            if not isinstance(type_name, str) or type_name not in SLOT_TYPE_NAMES:
                self.found.error((*loc, key, slot), "bad-enum",
                                 N_("type of '{slot}' must be one of {choices}, not {given}"),
                                 slot=slot, choices=", ".join(SLOT_TYPE_NAMES), given=repr(type_name))
                continue
            slots[slot] = SlotType(type_name)
        return slots

    def _when(self, group: dict[str, Any], loc: Loc, ins: dict[str, SlotType]) -> str:
        value = group.get("when", "true")
        if not isinstance(value, str):
            self.found.error((*loc, "when"), "bad-type", N_('"when" is a condition written as text, like {example}'),
                             example='"$args.n > 3"')
            return "true"
        try:
            condition = parse_condition(value)
        except ConditionSyntaxError as exc:
            self.found.error((*loc, "when"), "bad-condition", N_("condition: {reason}"), getattr(exc, "offset", None),
                             reason=exc.words)
            return value
        declared = isinstance(group.get("in"), dict)
        for name, offset in condition.references():
            if declared and name not in ins and name in group.get("in", {}):
                continue  # already reported as a bad slot declaration
            if name not in ins:
                self.found.error((*loc, "when"), "undeclared-arg",
                                 N_("the condition reads $args.{name}, which is not declared in this group's \"in\": "
                                    'add "{name}" to "in", or use one of: {names}'), offset,
                                 name=name, names=names_or_none(ins))
        return value

    def _enum(self, group: dict[str, Any], key: str, loc: Loc, enum: type[Missing] | type[OnError],
              default: Any) -> Any:
        if key not in group:
            return default
        value = group[key]
        choices = [m.value for m in enum]
        if not isinstance(value, str) or value not in choices:
            self.found.error((*loc, key), "bad-enum", N_('"{key}" must be one of {choices}, not {given}'), key=key,
                             choices=", ".join(choices), given=repr(value))
            return default
        return enum(value)

    def _timeout(self, group: dict[str, Any], loc: Loc) -> str | None:
        value = group.get("timeout")
        if value is None:
            return None
        if not isinstance(value, str):
            self.found.error((*loc, "timeout"), "bad-timeout",
                             N_('"timeout" is text with a unit, like "30s", "2m" or "500ms", not {given}'),
                             given=repr(value))
            return None
        try:
            parse_duration(value)
        except ValueError as exc:
            self.found.error((*loc, "timeout"), "bad-timeout", getattr(exc, "words", None) or verbatim(str(exc)))
            return None
        return value

    # -- tools ----------------------------------------------------------------------------------
