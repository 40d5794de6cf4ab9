"""Where a validator problem sits in the document text: for the editor's text view (its error marks)
and for `seqdesk check` (line and column), so both point at the same place.

Problems carry a `loc` (`("groups", 1, "tools", 0, "as")`) and, for text fields, an offset inside
that field's *decoded* string. The text view shows the raw document, where the `tools` string is
itself JSON inside a JSON string (every `"` written `\\"`). So this module records where each value
of the document starts and ends, walks the `loc` as deep as the text allows, and maps offsets in a
decoded string back through its escapes, twice when needed (an `$args` inside an argument inside
`tools`). Anything it cannot follow falls back to the deepest place it found: at least the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from json import decoder
from typing import Any

from gui.core.sequences.parser import split_tools
from gui.core.sequences.problems import Problem

# `json.decoder.scanstring` (the C scanner, or its pure-Python fallback) is what `json` itself uses,
# but typeshed's stub of `json.decoder` leaves it out: read it from the module, with its signature.
scanstring: Callable[[str, int], tuple[str, int]] = vars(decoder)["scanstring"]

# Problems whose offset is that of an `$args.` inside an argument's text (not of the tool in `tools`).
_AT_INPUT = frozenset({"undeclared-arg", "input-in-shell-code", "input-runs-as-command"})
_LITERAL = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_WS = " \t\r\n"


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    key_start: int | None = None


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def scan(text: str, start: int = 0) -> dict[tuple[Any, ...], Span]:
    """Spans of every value of the JSON value at `start`, by path (keys and indexes)."""
    spans: dict[tuple[Any, ...], Span] = {}
    try:
        _value(text, _skip(text, start), (), spans, None)
    except (ValueError, IndexError, RecursionError):
        pass  # keep what was found: callers fall back to the deepest known place
    return spans


def _value(text: str, pos: int, path: tuple[Any, ...], spans: dict[tuple[Any, ...], Span],
           key_start: int | None) -> int:
    ch = text[pos]
    if ch == "{":
        end = _object(text, pos, path, spans)
    elif ch == "[":
        end = _array(text, pos, path, spans)
    elif ch == '"':
        _, end = scanstring(text, pos + 1)
    else:
        match = _LITERAL.match(text, pos)
        if match is None:
            raise ValueError(pos)
        end = match.end()
    spans[path] = Span(pos, end, key_start)
    return end


def _object(text: str, pos: int, path: tuple[Any, ...], spans: dict[tuple[Any, ...], Span]) -> int:
    pos = _skip(text, pos + 1)
    if text[pos] == "}":
        return pos + 1
    while True:
        key_start = pos
        key, pos = scanstring(text, pos + 1)
        pos = _skip(text, pos)
        pos = _skip(text, pos + 1)  # past ':'
        pos = _skip(text, _value(text, pos, (*path, key), spans, key_start))
        if text[pos] == "}":
            return pos + 1
        pos = _skip(text, pos + 1)  # past ','


def _array(text: str, pos: int, path: tuple[Any, ...], spans: dict[tuple[Any, ...], Span]) -> int:
    pos = _skip(text, pos + 1)
    if text[pos] == "]":
        return pos + 1
    index = 0
    while True:
        pos = _skip(text, _value(text, pos, (*path, index), spans, None))
        index += 1
        if text[pos] == "]":
            return pos + 1
        pos = _skip(text, pos + 1)


def raw_index(text: str, literal_start: int, decoded_offset: int) -> int:
    """Index in `text` of character `decoded_offset` of the JSON string literal starting at `literal_start`."""
    pos, count = literal_start + 1, 0
    while count < decoded_offset and pos < len(text) and text[pos] != '"':
        if text[pos] == "\\":
            if text.startswith("\\u", pos):
                high = text[pos + 2:pos + 6]
                pos += 6
                if high[:2].upper() in ("D8", "D9", "DA", "DB") and text.startswith("\\u", pos):
                    pos += 6
            else:
                pos += 2
        else:
            pos += 1
        count += 1
    return pos


def _decoded(text: str, span: Span) -> str | None:
    try:
        value = json.loads(text[span.start:span.end])
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def locate(text: str, problem: Problem, spans: dict[tuple[Any, ...], Span] | None = None) -> tuple[int, int]:
    """(start, end) in the document `text` to mark for `problem`; end > start when text allows.

    `spans` is `scan(text)` when the caller locates many problems in one text (scan it once).
    """
    loc = problem.loc
    if spans is None:
        spans = scan(text)
    if not loc:
        start = problem.offset if problem.offset is not None else 0
        return _word(text, min(start, len(text)))
    depth = len(loc)
    while depth > 0 and tuple(loc[:depth]) not in spans:
        depth -= 1
    known = tuple(loc[:depth])
    span = spans.get(known)
    if span is None:
        return _word(text, 0)
    rest = loc[depth:]
    is_tools = len(known) == 3 and known[0] == "groups" and known[2] == "tools"
    if is_tools:
        return _in_tools(text, span, rest, problem)
    if known[-1:] == ("when",) and problem.offset is not None and not rest:
        at = raw_index(text, span.start, problem.offset)
        return _word(text, at)
    if len(known) == 4 and known[2] in ("in", "out") and span.key_start is not None:
        return span.key_start, span.end
    return span.start, span.end


def _in_tools(text: str, span: Span, rest: tuple[Any, ...], problem: Problem) -> tuple[int, int]:
    tools_text = _decoded(text, span)
    if tools_text is None:
        return span.start, span.end
    if not rest or not isinstance(rest[0], int):
        if problem.offset is None:
            return span.start, span.end
        return _word(text, raw_index(text, span.start, problem.offset))
    raw_tools, _ = split_tools(tools_text, ())
    if rest[0] >= len(raw_tools):
        return span.start, span.end
    tool_start = raw_tools[rest[0]].offset
    inner = scan(tools_text, tool_start)
    path = tuple(rest[1:])
    depth = len(path)
    while depth > 0 and path[:depth] not in inner:
        depth -= 1
    sub = inner.get(path[:depth])
    if sub is None:
        return _word(text, raw_index(text, span.start, tool_start))
    pos_in_tools, end_in_tools = sub.start, sub.end
    if problem.code in _AT_INPUT and problem.offset is not None and depth == len(path):
        pos_in_tools = raw_index(tools_text, sub.start, problem.offset)
        start = raw_index(text, span.start, pos_in_tools)
        return _word(text, start)
    start = raw_index(text, span.start, pos_in_tools)
    end = raw_index(text, span.start, end_in_tools)
    return (start, end) if end > start else _word(text, start)


def _word(text: str, at: int) -> tuple[int, int]:
    """A short range from `at` (a token's width), so the mark is visible even at the very end."""
    if not text:
        return 0, 0
    at = max(0, min(at, len(text) - 1))
    end = at + 1
    while end < len(text) and end - at < 40 and (text[end].isalnum() or text[end] in "_.$"):
        end += 1
    return at, end


def place_of(text: str, problem: Problem, spans: dict[tuple[Any, ...], Span] | None = None) -> tuple[int, int]:
    """The 1-based line and column a person is told `problem` sits at (the start of what `locate`
    marks). A document that stops too early is placed just past its last character, where its reader
    stopped, though its mark covers that last character (a mark needs one)."""
    if not problem.loc and problem.offset is not None:
        return line_col(text, problem.offset)
    return line_col(text, locate(text, problem, spans)[0])


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset` in `text`."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
