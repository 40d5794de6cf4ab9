"""`$args` substitution in a tool call's `args`, as one pure function.

The runner, the validator and the editor all need the same reading of `$args.<name>` (spec §1,
rule 5): a string that is exactly `"$args.n"` becomes the value *with its type* (a number stays a
number, a list stays a list); inside longer text the value is interpolated as text; nested objects
and arrays are walked; keys are left alone. `$$args.x` is the escape for the literal text `$args.x`.
An absent input is an error that names where it was used, never an empty string that a shell
command would silently run with. `references()` gives the validator every use with its location.

Shell text (`cmd_run`'s `command`, the fields a tool names in `shell_text_args`) is different: where
an input inside longer text lands is read with a shell lexer (`gui.core.sequences.shell.lexer`), and it goes in
as that place needs (`gui.core.sequences.shell.inputs`): between words as one shell-quoted word, so
`echo $args.host` with the host `x; touch INJECTED` runs `echo 'x; touch INJECTED'`; inside "…"
as text of that string (`gui.core.sequences.shell.inputs.in_double_quotes`). Anywhere else it is
refused (ShellPlaceError),
in the same places the validator refuses at save. A whole-value `"$args.x"` is still replaced as it
is (the whole command comes from the input, and the approval says so).
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.errors import Invalid
from gui.core.sequences.names import ARGS_PREFIX, scan_name
from gui.core.sequences.shell import Place, allowed, code_holes, in_double_quotes, insert, read_shell, refusal

Path = tuple[str | int, ...]
ESCAPED_PREFIX = "$" + ARGS_PREFIX


class SubstitutionError(Invalid):
    """An `$args.<name>` that cannot be replaced (its input has no value, or it sits where no value may
    go in shell text). `path` is where, inside the tool's args; `offset`, where in that text."""

    def __init__(self, message: str, path: Path, name: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.name = name
        self.offset = offset


class ShellPlaceError(SubstitutionError):
    """An input at a place of shell text where its value could become part of a command."""


@dataclass(frozen=True)
class _Ref:
    name: str
    offset: int


@dataclass(frozen=True)
class Landing:
    """Where one `$args.<name>` lands in shell text: its `place`, and `runs_as`, the program that runs
    it as code ("" when it names the program; None when it stays data). `whole`: the text is only it."""

    name: str
    offset: int
    place: Place
    runs_as: str | None = None
    whole: bool = False


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


@dataclass(slots=True)
class Bound:
    """A tool's args with its inputs put in (`args`), and what its approval shows of them, found by
    the same walk: `inputs`, every input they used with its value (`bound_inputs`), and `as_code`,
    every input a program will run as a command, with that program (`run_as_code`)."""

    args: Any
    inputs: dict[str, Any] = field(default_factory=dict)
    as_code: dict[str, str] = field(default_factory=dict)


def substitute(value: Any, args: Mapping[str, Any], *, shell: Collection[str] = ()) -> Any:
    """`value` with every `$args.<name>` replaced from `args`; a new object, `value` is untouched.
    Inside the top-level fields named in `shell`, an input within longer text is shell-quoted.

    Raises SubstitutionError for the first reference (in document order) whose name is absent.
    """
    return bind(value, args, shell=shell).args


def bind(value: Any, args: Mapping[str, Any], *, shell: Collection[str] = ()) -> Bound:
    """`substitute`, with the inputs it put in and those a program will run as code (`Bound`): the
    walk that puts them in reads every reference and every place in shell text already."""
    bound = Bound(None)
    bound.args = _substitute(value, args, (), frozenset(shell), bound)
    return bound


def holds_references(value: Any) -> bool:
    """Whether `value` may hold an `$args.<name>` (or its `$$args.` escape): a "$" in any of its texts.
    A step whose args hold none is bound without a walk that reads references (`bind_literal`)."""
    kind = type(value)
    if kind is str or isinstance(value, str):
        return "$" in value
    if kind is dict or isinstance(value, Mapping):
        return any(holds_references(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_references(item) for item in value)
    return False


def bind_literal(value: Any) -> Bound:
    """`bind` of args that hold no reference (`holds_references` is False): a new copy of them as they
    are, no inputs used, nothing run as code."""
    return Bound(_fresh(value), {}, {})


def _fresh(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        for item in value.values():
            if type(item) not in _SCALARS:
                return {key: item if type(item) in _SCALARS else _fresh(item) for key, item in value.items()}
        return value.copy()  # (most steps' args: text and numbers)
    if kind is int or kind is str or kind is float or kind is bool or value is None:
        return value
    if isinstance(value, Mapping):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_fresh(item) for item in value]
    return value


_SCALARS = frozenset({int, str, float, bool, type(None)})


def _substitute(value: Any, args: Mapping[str, Any], path: Path, shell: frozenset[str], bound: Bound) -> Any:
    kind = type(value)
    if kind is int or kind is float or kind is bool or value is None:  # most values (no ABC check)
        return value
    if kind is str or isinstance(value, str):
        return _substitute_text(value, args, path, bound, shell=bool(path) and path[0] in shell)
    if kind is dict or isinstance(value, Mapping):
        return {key: _substitute(item, args, (*path, key), shell, bound) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_substitute(item, args, (*path, index), shell, bound) for index, item in enumerate(value)]
    return value


def _substitute_text(text: str, args: Mapping[str, Any], path: Path, bound: Bound, *, shell: bool = False) -> Any:
    parts = _segments(text)
    name = _whole(text, parts)
    if name is not None:
        found = _lookup(args, name, path, 0)
        bound.inputs.setdefault(name, found)
        value = copy.deepcopy(found)
        if shell:
            bound.as_code.setdefault(name, "")  # the whole command comes from the input
            if isinstance(value, str):
                _no_nul(value, path, name, 0)
        return value
    landings = iter(shell_landings(text)) if shell else None
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, _Ref):
            value = _lookup(args, part.name, path, part.offset)
            bound.inputs.setdefault(part.name, value)
            inserted = as_text(value)
            if landings is not None:
                landing = next(landings)
                if landing.runs_as is not None:
                    bound.as_code.setdefault(landing.name, landing.runs_as)
                inserted = _into_shell(inserted, value, landing.place, part, path)
            pieces.append(inserted)
        else:
            pieces.append(part)
    return "".join(pieces)


def _into_shell(text: str, value: Any, place: Place, ref: _Ref, path: Path) -> str:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not allowed(place, number=number):
        raise ShellPlaceError(f"{format_path(path)}: {refusal(place, ref.name).render()}", path, ref.name,
                              ref.offset)
    _no_nul(text, path, ref.name, ref.offset)
    return insert(text, place)


def _no_nul(text: str, path: Path, name: str, offset: int) -> None:
    if "\0" in text:
        raise ShellPlaceError(f"{format_path(path)}: $args.{name} holds a NUL character (\\0), which no command "
                              "can carry", path, name, offset)


def bound_inputs(value: Any, args: Mapping[str, Any]) -> dict[str, Any]:
    """`{name: value}` of every input `value` uses (what an approval shows came from an input; a run
    finds them as it substitutes: `bind`)."""
    return {name: args[name] for _, name, _ in references(value) if name in args}


def shell_words(value: Any) -> tuple[str, ...]:
    """How an input can read inside shell text once inserted (as a quoted word, or escaped inside
    "…"), for highlighting it there."""
    text = as_text(value)
    return tuple(dict.fromkeys((shlex.quote(text), in_double_quotes(text))))


def shell_landings(text: str) -> list[Landing]:
    """Where each `$args.<name>` of the shell text `text` lands, in document order."""
    parts = _segments(text)
    whole = _whole(text, parts)
    if whole is not None:
        return [Landing(whole, 0, Place.WORD, runs_as="", whole=True)]
    refs: list[_Ref] = []
    pieces: list[str | int] = []
    for part in parts:
        if isinstance(part, _Ref):
            pieces.append(len(refs))
            refs.append(part)
        else:
            pieces.append(part)
    if not refs:
        return []
    reading = read_shell(pieces)
    code = code_holes(reading.pipelines)
    return [Landing(ref.name, ref.offset, reading.places.get(index, Place.UNCLEAR), code.get(index))
            for index, ref in enumerate(refs)]


def shell_texts(value: Mapping[str, Any], shell: Collection[str]) -> Iterator[tuple[Path, str]]:
    """Every text inside the fields of `value` (a tool's args) named in `shell`, with its path."""
    for key in shell:
        if key in value:
            yield from _texts(value[key], (key,))


def _texts(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _texts(item, (*path, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _texts(item, (*path, index))


def run_as_code(value: Mapping[str, Any], shell: Collection[str]) -> dict[str, str]:
    """`{input: program}` for every input a program will run as a command ("": it is the command or
    names the program): what the approval marks "this input will be run as a command" (a run finds
    them as it substitutes: `bind`)."""
    found: dict[str, str] = {}
    for _, text in shell_texts(value, shell):
        for landing in shell_landings(text):
            if landing.runs_as is not None:
                found.setdefault(landing.name, landing.runs_as)
    return found


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
