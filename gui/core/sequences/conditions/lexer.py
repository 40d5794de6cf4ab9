"""Tokens of the `when` condition language, read one at a time on demand.

A separate module so `conditions.py` (tree, parser, evaluator) stays readable. The parser pulls one
token at a time, so the leftmost mistake in the text is the one reported, with its offset. Every
mistake is a `ConditionSyntaxError` whose message says what to write instead (`=` → `==`, `&&` →
`and`, single quotes → double quotes), because the people writing conditions are not programmers.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from typing import Any

from gui.core.errors import Invalid
from gui.core.marks import N_, Sentence, sentence
from gui.core.sequences.names import is_name_char, is_name_start, scan_name

KEYWORDS = frozenset({"and", "or", "not", "true", "false", "contains"})
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# What a character people bring from other languages means here.
_HINTS = {
    "=": N_("write == to compare: a single = is not an operator"),
    "!": N_("write not instead of !"),
    "&": N_("write and instead of &&"),
    "|": N_("write or instead of ||"),
    "'": N_('text goes in double quotes: "like this"'),
}
# How the editor's argument boxes show an input ("checked ⤷host"); a condition is written in the format.
INPUT_MARK = "\u2937"
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


class ConditionSyntaxError(Invalid):
    """The text is not a condition. `message` says what was expected (English); `offset` is where, in
    the text; `words` is the marked template with its parameters, for a screen's own language."""

    def __init__(self, message: str | Sentence, offset: int, **params: object) -> None:
        self.words = message if isinstance(message, Sentence) else sentence(message, **params)
        self.message = self.words.render()
        self.offset = offset
        super().__init__(f"{self.message} (at character {offset})")


@dataclass(frozen=True)
class Token:
    kind: str  # ( ) op and or not bool arg str num end
    start: int
    end: int
    value: Any = None


def lex(text: str, i: int) -> Token:
    """The token at or after `i`. Called on demand, so the leftmost mistake is the one reported."""
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    if i >= n:
        return Token("end", i, i)
    c, two = text[i], text[i : i + 2]
    if c in "()":
        return Token(c, i, i + 1)
    if two in ("==", "!=", ">=", "<="):
        return Token("op", i, i + 2, two)
    if c in "<>":
        return Token("op", i, i + 1, c)
    if c == '"':
        return _lex_string(text, i)
    if c == "-" or c in string.digits:
        return _lex_number(text, i)
    if c == "$":
        return _lex_arg(text, i)
    if is_name_start(c):
        end = scan_name(text, i)
        word = text[i:end]
        if word in ("true", "false"):
            return Token("bool", i, end, word == "true")
        if word == "contains":
            return Token("op", i, end, word)
        if word in KEYWORDS:
            return Token(word, i, end)
        if word.lower() in KEYWORDS:
            raise ConditionSyntaxError(N_("write {lower} in lowercase, not {word}"), i, lower=word.lower(), word=word)
        raise ConditionSyntaxError(
            N_("unknown word {word}: an input is read as $args.{word}, text goes in double quotes"), i, word=clip(word))
    if c == INPUT_MARK:
        _refuse_mark(text, i)
    hint = _HINTS.get(c)
    if hint is not None:
        raise ConditionSyntaxError(hint, i)
    raise ConditionSyntaxError(N_("unexpected character {char}"), i, char=repr(c))


def _refuse_mark(text: str, i: int) -> None:
    """`⤷host`: how the editor's argument boxes show an input, brought into a condition."""
    start = i + 1
    while start < len(text) and text[start] == " ":
        start += 1
    end = scan_name(text, start) if start < len(text) and is_name_start(text[start]) else start
    name = text[start:end] or "<name>"
    raise ConditionSyntaxError(N_("a condition reads an input as $args.{name}: write that instead of {mark}"), i,
                               name=clip(name), mark=clip(text[i:end]))


def _lex_string(text: str, start: int) -> Token:
    out: list[str] = []
    j, n = start + 1, len(text)
    while j < n:
        c = text[j]
        if c == '"':
            return Token("str", start, j + 1, "".join(out))
        if c != "\\":
            out.append(c)
            j += 1
            continue
        e = text[j + 1 : j + 2]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            j += 2
        elif e == "u":
            code = _hex4(text, j)
            j += 6
            low = _hex4(text, j) if 0xD800 <= code < 0xDC00 and text.startswith("\\u", j) else 0
            if 0xDC00 <= low < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                j += 6
            out.append(chr(code))
        elif e:
            raise ConditionSyntaxError(N_("invalid escape \\{escape} in a string: write \\\\ for a backslash"), j,
                                       escape=e)
        else:
            break
    raise ConditionSyntaxError(N_('unterminated string: close it with "'), start)


def _hex4(text: str, j: int) -> int:
    digits = text[j + 2 : j + 6]
    if len(digits) != 4 or any(d not in string.hexdigits for d in digits):
        raise ConditionSyntaxError(N_("expected 4 hex digits after \\u"), j)
    return int(digits, 16)


def _lex_number(text: str, start: int) -> Token:
    match = _NUMBER.match(text, start)
    if match is None:
        raise ConditionSyntaxError(N_("expected a digit after -"), start)
    end = match.end()
    if end < len(text) and (text[end] == "." or is_name_char(text[end])):
        stop = end
        while stop < len(text) and (text[stop] == "." or is_name_char(text[stop])):
            stop += 1
        raise ConditionSyntaxError(N_("malformed number {number}"), start, number=clip(text[start:stop]))
    raw = match.group()
    try:
        value: int | float = float(raw) if match.group(1) or match.group(2) else int(raw)
    except ValueError:  # more digits than Python converts
        raise ConditionSyntaxError(N_("number too long"), start) from None
    if isinstance(value, float) and not math.isfinite(value):  # a whole number is never too large
        raise ConditionSyntaxError(N_("number too large"), start)
    return Token("num", start, end, value)


def _lex_arg(text: str, start: int) -> Token:
    end = scan_name(text, start + 1)
    if text[start + 1 : end] != "args":
        shown = text[start:end] if end > start + 1 else "$"
        raise ConditionSyntaxError(N_("unknown {word}: an input is read as $args.<name>"), start, word=clip(shown))
    if not text.startswith(".", end):
        raise ConditionSyntaxError(N_("expected . and a name after $args, as in $args.host"), end)
    name_end = scan_name(text, end + 1)
    if name_end == end + 1:
        raise ConditionSyntaxError(N_("expected a name after $args. (a letter or _ first)"), end + 1)
    return Token("arg", start, name_end, text[end + 1 : name_end])


def clip(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
