"""A tool's JSON schema read as a list of form fields: which widget, which words, which inputs fit.

Built-in tools describe their arguments with pydantic (titles, descriptions, `anyOf [X, null]` for
optional values, `$ref` into `$defs`); MCP tools send plain JSON schemas. Both are reduced here to
one `ArgSpec` per property so the form never shows a raw schema and never labels a field "value"
without help: the schema's title and description are what the person reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gui.i18n import N_

Kind = Literal["text", "number", "bool", "enum", "json", "list", "any"]

# Which declared input types may be bound to a field of each kind.
COMPATIBLE: dict[str, tuple[str, ...]] = {
    "text": ("string",),
    "number": ("number",),
    "bool": ("boolean",),
    "enum": ("string",),
    "json": ("array", "object"),
    "list": ("array",),
    "any": ("string", "number", "boolean", "array", "object"),
}


@dataclass(frozen=True)
class ArgSpec:
    name: str
    title: str
    description: str = ""
    kind: Kind = "any"
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    json_types: tuple[str, ...] = field(default=())
    # kind "list": a list of small forms, one per item (ask_user's questions, their choices)
    fields: tuple[ArgSpec, ...] = ()
    item_title: str = ""

    @property
    def compatible(self) -> tuple[str, ...]:
        if self.kind == "json" and self.json_types:
            return tuple(t for t in self.json_types if t in ("array", "object")) or COMPATIBLE["json"]
        return COMPATIBLE[self.kind]


def arg_specs(schema: dict[str, Any] | None) -> list[ArgSpec]:
    """One spec per property of an object schema, in the schema's order."""
    if not isinstance(schema, dict):
        return []
    defs = schema.get("$defs") or schema.get("definitions") or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    specs = []
    for name, raw in props.items():
        if not isinstance(raw, dict):
            continue
        resolved = _resolve(raw, defs)
        optional, inner = _unwrap_optional(resolved, defs)
        kind, choices, types = _kind(inner)
        fields, item_title = _item_form(inner, defs) if types == ("array",) else ((), "")
        if fields:
            kind = "list"
        title = str(raw.get("title") or resolved.get("title") or name.replace("_", " ").capitalize())
        description = str(raw.get("description") or resolved.get("description") or "")
        specs.append(ArgSpec(name=name, title=title, description=description, kind=kind,
                             required=name in required and not optional,
                             default=raw.get("default", resolved.get("default")), choices=choices,
                             json_types=types, fields=fields, item_title=item_title))
    return specs


def _item_form(schema: dict[str, Any], defs: dict[str, Any]) -> tuple[tuple[ArgSpec, ...], str]:
    """The fields of an array's items when each item is an object with named properties."""
    items = schema.get("items")
    if not isinstance(items, dict):
        return (), ""
    items = _resolve(items, defs)
    if items.get("type") not in ("object", None) or not isinstance(items.get("properties"), dict):
        return (), ""
    fields = tuple(arg_specs({**items, "$defs": defs}))
    return fields, str(items.get("title") or N_("Item")) if fields else ""


def unknown_spec(name: str) -> ArgSpec:
    """A field for an argument the schema does not describe (an offline tool, a misspelt name)."""
    return ArgSpec(name=name, title=name, description=N_("This tool does not describe this argument."), kind="any")


def _resolve(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and depth < 10:
        target = defs.get(ref.rsplit("/", 1)[-1])
        if isinstance(target, dict):
            merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return _resolve(merged, defs, depth + 1)
    return schema


def _unwrap_optional(schema: dict[str, Any], defs: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            others = [_resolve(o, defs) for o in options if isinstance(o, dict) and o.get("type") != "null"]
            optional = len(others) < len(options)
            if len(others) == 1:
                return optional, {**others[0], **{k: v for k, v in schema.items() if k not in (key,)}}
            return optional, {"type": [o.get("type") for o in others if isinstance(o.get("type"), str)]}
    types = schema.get("type")
    if isinstance(types, list) and "null" in types:
        rest = [t for t in types if t != "null"]
        return True, {**schema, "type": rest[0] if len(rest) == 1 else rest}
    return False, schema


def _kind(schema: dict[str, Any]) -> tuple[Kind, tuple[Any, ...], tuple[str, ...]]:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return "enum", tuple(enum), ()
    type_ = schema.get("type")
    if type_ == "string":
        return "text", (), ()
    if type_ in ("number", "integer"):
        return "number", (), ()
    if type_ == "boolean":
        return "bool", (), ()
    if type_ in ("array", "object"):
        return "json", (), (type_,)
    if isinstance(type_, list) and type_ and all(t in ("array", "object") for t in type_):
        return "json", (), tuple(type_)
    return "any", (), ()
