"""Reading the seed's text form: the JSON document, and each group's `tools` string.

The parser never raises anything but `DslError`, whatever it is given, and never drops a tool
silently: a missing `;` between two objects is reported *and* both objects are still read, so one
mistake does not hide the next. Structural checks of fields live in `validator`; this module only
turns text into plain Python values, with the character offset of every problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from gui.core.errors import Invalid
from gui.core.marks import N_, Sentence, sentence, verbatim
from gui.core.sequences.problems import DslError, Loc, Problem, problem

_DECODER = json.JSONDecoder()


class _DuplicateKey(Invalid):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _BadNumber(Invalid):
    """A number JSON cannot carry: `NaN`, `Infinity`, one too large for a float, too many digits."""

    def __init__(self, literal: str, words: Sentence) -> None:
        super().__init__(words.render())
        self.literal = literal
        self.words = words
        self.message = words.render()


def _refuse_constant(name: str) -> float:
    raise _BadNumber(name, sentence(N_("{name} is not a JSON number: write a number, or text in quotes"), name=name))


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _BadNumber(literal, sentence(N_("{number} is too large a number"), number=literal))
    return value


def _whole_number(literal: str) -> int:
    try:
        return int(literal)
    except ValueError:  # more digits than Python converts
        raise _BadNumber(literal, sentence(N_("a number of {count} digits is too long"), count=len(literal))) from None


# For `json.loads`: only numbers JSON can carry, in a form every reader of the stored data accepts.
NUMBER_HOOKS: dict[str, Any] = {"parse_constant": _refuse_constant, "parse_float": _finite_float,
                                "parse_int": _whole_number}
_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, **NUMBER_HOOKS)


# What Python's JSON reader says, so a screen can say it in its language (anything else: as it is).
_JSON_WORDS = {
    "Expecting value": N_("Expecting value"),
    "Expecting property name enclosed in double quotes": N_("Expecting property name enclosed in double quotes"),
    "Expecting ':' delimiter": N_("Expecting ':' delimiter"),
    "Expecting ',' delimiter": N_("Expecting ',' delimiter"),
    "Unterminated string starting at": N_("Unterminated string starting at"),
    "Invalid control character at": N_("Invalid control character at"),
    "Invalid \\escape": N_("Invalid \\escape"),
    "Invalid \\uXXXX escape": N_("Invalid \\uXXXX escape"),
}


def _json_reason(msg: str) -> Sentence:
    known = _JSON_WORDS.get(msg)
    return sentence(known) if known is not None else verbatim(msg)


def _json_problem(exc: json.JSONDecodeError, loc: Loc, what: Sentence) -> Problem:
    reason = _json_reason(exc.msg)
    if "property name enclosed in double quotes" in exc.msg:
        return problem(loc, "invalid-json", N_("{what} is not valid JSON: {reason}: "
                                               "keys need double quotes, like {good}, not {bad}"), offset=exc.pos,
                       what=what, reason=reason, good='{"tool": …}', bad="{tool: …}")
    return problem(loc, "invalid-json", N_("{what} is not valid JSON: {reason}"),
                   offset=exc.pos, what=what, reason=reason)


_DOCUMENT = sentence(N_("the document"))


def _tool_object(number: int) -> Sentence:
    return sentence(N_("tool object {number}"), number=number)


def _duplicate_key_position(text: str, start: int, key: str) -> int:
    needle = json.dumps(key, ensure_ascii=False)
    first = text.find(needle, start)
    second = text.find(needle, first + 1) if first >= 0 else -1
    return second if second >= 0 else max(first, start)


def _bad_number(exc: _BadNumber, text: str, start: int, loc: Loc, what: Sentence) -> Problem:
    at = text.find(exc.literal, start)
    return problem(loc, "invalid-json", N_("{what} is not valid JSON: {reason}"), offset=at if at >= 0 else start,
                   what=what, reason=exc.words)


def load_json_text(text: str, loc: Loc = ()) -> Any:
    """The JSON value in `text` (a whole document); DslError with the offset when it is not JSON."""
    if not isinstance(text, str):
        raise DslError([problem(loc, "bad-type", N_("the document must be text"))])
    try:
        value, end = _STRICT_DECODER.raw_decode(text, _skip_space(text, 0))
    except _DuplicateKey as exc:
        pos = _duplicate_key_position(text, 0, exc.key)
        raise DslError([problem(loc, "duplicate-key", N_("the key '{key}' appears twice in one object: keep one"),
                                offset=pos, key=exc.key)]) from None
    except _BadNumber as exc:
        raise DslError([_bad_number(exc, text, 0, loc, _DOCUMENT)]) from None
    except json.JSONDecodeError as exc:
        raise DslError([_json_problem(exc, loc, _DOCUMENT)]) from None
    except RecursionError:
        raise DslError([problem(loc, "invalid-json", N_("the document is nested too deeply"))]) from None
    end = _skip_space(text, end)
    if end != len(text):
        raise DslError([problem(loc, "invalid-json", N_("unexpected text after the end of the JSON document"),
                                offset=end)])
    return value


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


@dataclass(frozen=True)
class RawTool:
    """One object read from a `tools` string, with where it starts in that string."""

    value: Any
    offset: int


def split_tools(text: str, loc: Loc) -> tuple[list[RawTool], list[Problem]]:
    """Every `{…} ;` object in a group's `tools` string, and every problem, each with its offset.

    After an error inside an object the scan resumes after the next `;`, so later tools are still
    read and checked.
    """
    tools: list[RawTool] = []
    problems: list[Problem] = []
    pos = _skip_space(text, 0)
    if pos == len(text):
        problems.append(problem(loc, "empty-tools", N_("the group has no tools: write at least one, like {example}"),
                                offset=0, example='{"tool":"echo","args":{"value":"hi"}} ;'))
        return tools, problems
    while pos < len(text):
        if text[pos] == ";":
            problems.append(problem(loc, "invalid-json", N_(
                "a ';' with no tool object before it: remove it, or put a {{…}} object before it"), offset=pos))
            pos = _skip_space(text, pos + 1)
            continue
        if text[pos] != "{":
            problems.append(problem(loc, "invalid-json", N_(
                "expected '{{' to start a tool object, found {found}: each tool is a JSON object followed by ';'"),
                offset=pos, found=repr(text[pos])))
            pos = _resume_after_semicolon(text, pos)
            continue
        start = pos
        try:
            value, pos = _STRICT_DECODER.raw_decode(text, pos)
        except _DuplicateKey as exc:
            problems.append(problem((*loc, len(tools)), "duplicate-key",
                                    N_("the key '{key}' appears twice in this tool: keep one"),
                                    offset=_duplicate_key_position(text, start, exc.key), key=exc.key))
            tools.append(RawTool(value=None, offset=start))
            pos = _resume_after_semicolon(text, start)
            continue
        except _BadNumber as exc:
            problems.append(_bad_number(exc, text, start, loc, _tool_object(len(tools) + 1)))
            tools.append(RawTool(value=None, offset=start))
            pos = _resume_after_semicolon(text, start)
            continue
        except json.JSONDecodeError as exc:
            problems.append(_json_problem(exc, loc, _tool_object(len(tools) + 1)))
            tools.append(RawTool(value=None, offset=start))
            pos = _resume_after_semicolon(text, start)
            continue
        except RecursionError:
            problems.append(problem(loc, "invalid-json", N_("tool object {number} is nested too deeply"),
                                    offset=start, number=len(tools) + 1))
            tools.append(RawTool(value=None, offset=start))
            pos = _resume_after_semicolon(text, start)
            continue
        tools.append(RawTool(value=value, offset=start))
        pos = _skip_space(text, pos)
        if pos == len(text):
            problems.append(problem(loc, "missing-trailing-semicolon", N_(
                "the last tool object is not followed by ';': every tool ends with ';', the last one too"), offset=pos))
            break
        if text[pos] == ";":
            pos = _skip_space(text, pos + 1)
        elif text[pos] == "{":
            problems.append(problem(loc, "missing-semicolon", N_(
                "';' is missing between tool {before} and tool {after}: write '}} ; {{' "
                "(the next tool was still read)"),
                offset=pos, before=len(tools), after=len(tools) + 1))
        else:
            problems.append(problem(loc, "invalid-json", N_("expected ';' after tool object {number}, found {found}"),
                                    offset=pos, number=len(tools), found=repr(text[pos])))
            pos = _resume_after_semicolon(text, pos)
    return tools, problems


def _resume_after_semicolon(text: str, pos: int) -> int:
    """Skip to just after the next ';' outside a JSON string (best effort recovery)."""
    in_string = escaped = False
    for i in range(pos, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == ";":
            return _skip_space(text, i + 1)
    return len(text)
