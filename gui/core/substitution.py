"""`$args` substitution in a tool call's `args`, as one pure function.

The runner, the validator and the editor all need the same reading of `$args.<name>` (spec §1,
rule 5): a string that is exactly `"$args.n"` becomes the value *with its type* (a number stays a
number, a list stays a list); inside longer text the value is interpolated as text; nested objects
and arrays are walked; keys are left alone. `$$args.x` is the escape for the literal text `$args.x`.
An absent input is an error that names where it was used, never an empty string that a shell
command would silently run with. `references()` gives the validator every use with its location.

Shell text (`cmd_run`'s `command`, the fields a tool names in `shell_text_args`) is different: an
input inside longer text is inserted shell-quoted (`shlex.quote`), so `echo $args.host` with the
host `x; touch INJECTED` runs `echo 'x; touch INJECTED'`: the input is one word, never a command.
A whole-value `"$args.x"` is still replaced as it is (the whole command comes from the input).
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from gui.core.names import ARGS_PREFIX, scan_name

Path = tuple[str | int, ...]
ESCAPED_PREFIX = "$" + ARGS_PREFIX


class SubstitutionError(ValueError):
    """An `$args.<name>` whose input has no value. `path` is where, inside the tool's args."""

    def __init__(self, message: str, path: Path, name: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.name = name
        self.offset = offset


@dataclass(frozen=True)
class _Ref:
    name: str
    offset: int


def _segments(text: str) -> list[str | _Ref]:
    """`text` cut into literal pieces and references, with the `$$args.` escape resolved."""
    out: list[str | _Ref] = []
    buf: list[str] = []
    i = 0
    while True:
        dollar = text.find("$", i)
        if dollar < 0:
            buf.append(text[i:])
            break
        buf.append(text[i:dollar])
        if text.startswith(ESCAPED_PREFIX, dollar):
            buf.append(ARGS_PREFIX)
            i = dollar + len(ESCAPED_PREFIX)
            continue
        if text.startswith(ARGS_PREFIX, dollar):
            start = dollar + len(ARGS_PREFIX)
            end = scan_name(text, start)
            if end > start:
                if any(buf):
                    out.append("".join(buf))
                buf = []
                out.append(_Ref(text[start:end], dollar))
                i = end
                continue
        buf.append("$")
        i = dollar + 1
    if any(buf):
        out.append("".join(buf))
    return out


def whole_reference(text: str) -> str | None:
    """The name when `text` is exactly `$args.<name>` (replaced with its type), else None."""
    return _whole(text, _segments(text)) if isinstance(text, str) else None


def _whole(text: str, parts: list[str | _Ref]) -> str | None:
    if len(parts) == 1 and isinstance(parts[0], _Ref) and text == ARGS_PREFIX + parts[0].name:
        return parts[0].name
    return None


def as_text(value: Any) -> str:
    """How a value reads inside longer text: strings as-is, everything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def format_path(path: Path) -> str:
    """`args.items[0].url`: where a value sits inside a tool's args, readable by a person."""
    out = "args"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def substitute(value: Any, args: Mapping[str, Any], *, shell: Collection[str] = ()) -> Any:
    """`value` with every `$args.<name>` replaced from `args`; a new object, `value` is untouched.
    Inside the top-level fields named in `shell`, an input within longer text is shell-quoted.

    Raises SubstitutionError for the first reference (in document order) whose name is absent.
    """
    return _substitute(value, args, (), frozenset(shell))


def _substitute(value: Any, args: Mapping[str, Any], path: Path, shell: frozenset[str]) -> Any:
    if isinstance(value, str):
        return _substitute_text(value, args, path, quote=bool(path) and path[0] in shell)
    if isinstance(value, Mapping):
        return {key: _substitute(item, args, (*path, key), shell) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_substitute(item, args, (*path, index), shell) for index, item in enumerate(value)]
    return value


def _substitute_text(text: str, args: Mapping[str, Any], path: Path, *, quote: bool = False) -> Any:
    parts = _segments(text)
    name = _whole(text, parts)
    if name is not None:
        return copy.deepcopy(_lookup(args, name, path, 0))
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, _Ref):
            inserted = as_text(_lookup(args, part.name, path, part.offset))
            pieces.append(shlex.quote(inserted) if quote else inserted)
        else:
            pieces.append(part)
    return "".join(pieces)


def bound_inputs(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """`{name: value}` of every input `value` uses (what an approval shows came from an input)."""
    return {name: args[name] for _, name, _ in references(value) if name in args}


def shell_words(value: Any) -> str:
    """How an input reads inside shell text once inserted (quoted), for highlighting it there."""
    return shlex.quote(as_text(value))


def _lookup(args: Mapping[str, Any], name: str, path: Path, offset: int) -> Any:
    if name in args:
        return args[name]
    given = ", ".join(sorted(str(k) for k in args))
    hint = f"the inputs given are: {given}" if given else "no inputs were given"
    message = f"{format_path(path)}: $args.{name} has no value ({hint})"
    raise SubstitutionError(message, path, name, offset)


def references(value: Any) -> list[tuple[Path, str, int]]:
    """Every `$args.<name>` in `value`: (path inside the args, name, offset of its `$` in that string).

    In document order, one entry per use; escaped `$$args.x` is not a reference. For the validator:
    each name must be declared in the group's `in`, and the path and offset say where to point.
    """
    found: list[tuple[Path, str, int]] = []
    _collect(value, (), found)
    return found


def _collect(value: Any, path: Path, found: list[tuple[Path, str, int]]) -> None:
    if isinstance(value, str):
        found.extend((path, part.name, part.offset) for part in _segments(value) if isinstance(part, _Ref))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _collect(item, (*path, key), found)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _collect(item, (*path, index), found)
