"""The `when` condition language: a hand-written parser, a small AST, and a strict evaluator.

Why by hand and never `eval`: a condition is text that people and AI agents write, so it must not be
able to run code, and every mistake must come back as a `ConditionSyntaxError` with the character
offset the editor points at, for any input at all. Why strict: evaluation that cannot give a
trustworthy answer (an absent input, a number compared with text, `==` across types) raises
`ConditionEvalError` instead of returning False, because a skipped step that the user believes ran is
the worst outcome (spec §1). For the same reason `and`/`or` evaluate every operand, so a latent type
error shows on the first run, not only on the input that happens to reach it.

Grammar (precedence: comparison > not > and > or; comparisons do not chain):
    or      := and ("or" and)*          and := not ("and" not)*
    not     := "not" not | primary      primary := "(" or ")" | operand [OP operand]
    operand := $args.<name> | "string" | number | true | false
A lone operand is a condition only when it is `true`, `false` or `$args.<name>` (which must be a boolean).
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.errors import Invalid
from gui.core.marks import N_, Sentence, sentence
from gui.core.sequences.conditions.lexer import ConditionSyntaxError, Token, clip, lex
from gui.core.sequences.model import json_type_name
from gui.core.sequences.names import ARGS_PREFIX, is_valid_name

OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "contains")
_OPS_HINT = "(==, !=, >, >=, <, <=, contains)"
_VALUE_HINT = sentence(N_('($args.<name>, a "string", a number, true or false)'))
_MAX_DEPTH = 100


class ConditionEvalError(Invalid):
    """The condition has no trustworthy answer for these args; `offset` points at the culprit if known."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


# ---------------------------------------------------------------------------------------------- AST
# `offset` is where a node starts in the parsed text (-1 when built by code); it is not compared.


@dataclass(frozen=True)
class Condition:
    """Base of every AST node; `parse_condition` returns one and `evaluate` reads one."""

    @property
    def offset(self) -> int:
        """Where the node starts in the parsed text; every node class defines it as a field."""
        raise NotImplementedError

    def to_text(self) -> str:
        """Canonical text that parses back to an equal tree."""
        raise NotImplementedError

    def references(self) -> list[tuple[str, int]]:
        """Every `$args` name used, with the offset of its `$`, in text order (one entry per use)."""
        return [(node.name, node.offset) for node in _walk(self) if isinstance(node, ArgRef)]

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True, eq=False)
class Literal(Condition):
    """A string, number or boolean. Equality also compares the type: `true` is not `1`, `3` is not `3.0`."""

    value: str | int | float | bool
    offset: int = field(default=-1, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.value, str | int | float):
            raise TypeError(f"a condition value is text, a number, true or false, not {self.value!r}")
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise ValueError(f"{self.value} is not a number a condition can hold")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Literal) and type(other.value) is type(self.value) and other.value == self.value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    def to_text(self) -> str:
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        if isinstance(self.value, str):
            return json.dumps(self.value, ensure_ascii=False)
        return repr(self.value)


@dataclass(frozen=True)
class ArgRef(Condition):
    """`$args.<name>`: an input of the group. Alone, as a condition, it must hold a boolean."""

    name: str
    offset: int = field(default=-1, compare=False)

    def __post_init__(self) -> None:
        if not is_valid_name(self.name):
            raise ValueError(f"{self.name!r} is not an input name (letters, digits, _; not a digit first)")

    def to_text(self) -> str:
        return ARGS_PREFIX + self.name


Operand = Literal | ArgRef


@dataclass(frozen=True)
class Compare(Condition):
    left: Operand
    op: str
    right: Operand
    offset: int = field(default=-1, compare=False)
    op_offset: int = field(default=-1, compare=False)

    def __post_init__(self) -> None:
        if self.op not in OPERATORS:
            raise ValueError(f"{self.op!r} is not an operator {_OPS_HINT}")
        if not isinstance(self.left, Operand) or not isinstance(self.right, Operand):
            raise TypeError("both sides of a comparison are values: Literal or ArgRef")

    def to_text(self) -> str:
        return f"{self.left.to_text()} {self.op} {self.right.to_text()}"


@dataclass(frozen=True)
class Not(Condition):
    operand: Condition
    offset: int = field(default=-1, compare=False)

    def to_text(self) -> str:
        return "not " + _child_text(self.operand, (And, Or))


@dataclass(frozen=True)
class _Junction(Condition):
    operands: tuple[Condition, ...]
    offset: int = field(default=-1, compare=False)
    keyword = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "operands", tuple(self.operands))
        if len(self.operands) < 2 or not all(isinstance(o, Condition) for o in self.operands):
            raise ValueError(f"'{self.keyword}' joins two or more conditions")

    def to_text(self) -> str:
        wrap = (And, Or) if isinstance(self, And) else (Or,)
        return f" {self.keyword} ".join(_child_text(o, wrap) for o in self.operands)


@dataclass(frozen=True)
class And(_Junction):
    keyword = "and"


@dataclass(frozen=True)
class Or(_Junction):
    keyword = "or"


def _child_text(node: Condition, wrap: tuple[type, ...]) -> str:
    return f"({node.to_text()})" if isinstance(node, wrap) else node.to_text()


def _walk(node: Condition) -> list[Condition]:
    """Every node, in text order."""
    if isinstance(node, Compare):
        return [node, *_walk(node.left), *_walk(node.right)]
    if isinstance(node, Not):
        return [node, *_walk(node.operand)]
    if isinstance(node, _Junction):
        return [node, *(n for o in node.operands for n in _walk(o))]
    return [node]


# ------------------------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tok = lex(text, 0)
        self.prev: Token | None = None
        self.depth = 0

    def advance(self) -> Token:
        self.prev = taken = self.tok
        self.tok = lex(self.text, taken.end)
        return taken

    def shown(self, tok: Token) -> str | Sentence:
        return sentence(N_("the end")) if tok.kind == "end" else clip(self.text[tok.start : tok.end])

    def parse_or(self) -> Condition:
        return self._junction(self.parse_and, "or", Or)

    def parse_and(self) -> Condition:
        return self._junction(self.parse_not, "and", And)

    def _junction(self, sub: Callable[[], Condition], keyword: str, cls: type[_Junction]) -> Condition:
        items = [sub()]
        while self.tok.kind == keyword:
            self.advance()
            items.append(sub())
        return items[0] if len(items) == 1 else cls(tuple(items), offset=items[0].offset)

    def parse_not(self) -> Condition:
        if self.tok.kind != "not":
            return self.parse_primary()
        start = self.advance().start
        self._enter(start)
        node = Not(self.parse_not(), offset=start)
        self.depth -= 1
        return node

    def _enter(self, offset: int) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ConditionSyntaxError(N_("condition nested too deeply (more than {limit} levels)"), offset,
                                       limit=_MAX_DEPTH)

    def parse_primary(self) -> Condition:
        tok = self.tok
        if tok.kind == "(":
            self.advance()
            self._enter(tok.start)
            node = self.parse_or()
            if self.tok.kind != ")":
                raise ConditionSyntaxError(N_("expected ) to close the ( at character {start}, found {token}"),
                                           self.tok.start, start=tok.start, token=self.shown(self.tok))
            self.advance()
            self.depth -= 1
            return node
        if tok.kind in ("arg", "str", "num", "bool"):
            return self.parse_comparison()
        if tok.kind == "end":
            if self.prev:
                raise ConditionSyntaxError(N_("unexpected end: expected a condition after {token}"), tok.start,
                                           token=self.shown(self.prev))
            raise ConditionSyntaxError(N_("unexpected end: expected a condition"), tok.start)
        if tok.kind == "op":
            raise ConditionSyntaxError(N_("expected a value {values} before {token}"), tok.start, values=_VALUE_HINT,
                                       token=self.shown(tok))
        raise ConditionSyntaxError(N_("unexpected '{token}': expected a condition"), tok.start, token=self.shown(tok))

    def operand(self) -> Operand:
        tok = self.advance()
        return ArgRef(tok.value, offset=tok.start) if tok.kind == "arg" else Literal(tok.value, offset=tok.start)

    def parse_comparison(self) -> Condition:
        left_tok = self.tok
        left = self.operand()
        if self.tok.kind != "op":
            lone_ok = left_tok.kind in ("arg", "bool")
            if lone_ok and self.tok.kind in ("and", "or", ")", "end"):
                return left
            raise ConditionSyntaxError(N_("expected an operator {operators} after {token}"), self.tok.start,
                                       operators=_OPS_HINT, token=self.shown(left_tok))
        op = self.advance()
        if self.tok.kind not in ("arg", "str", "num", "bool"):
            raise ConditionSyntaxError(N_("expected a value {values} after {operator}"), self.tok.start,
                                       values=_VALUE_HINT, operator=op.value)
        node = Compare(left, op.value, self.operand(), offset=left.offset, op_offset=op.start)
        if self.tok.kind == "op":
            raise ConditionSyntaxError(N_("unexpected {token}: comparisons do not chain, join them with and / or"),
                                       self.tok.start, token=self.shown(self.tok))
        return node


def parse_condition(text: str) -> Condition:
    """The tree of `text`. Raises ConditionSyntaxError, and nothing else, for any input."""
    if not isinstance(text, str):
        raise ConditionSyntaxError(N_("a condition is text, not {kind}"), 0, kind=type(text).__name__)
    parser = _Parser(text)
    if parser.tok.kind == "end":
        raise ConditionSyntaxError(N_("empty condition: write true to always run"), 0)
    node = parser.parse_or()
    tok = parser.tok
    if tok.kind == ")":
        raise ConditionSyntaxError(N_("unexpected ')': there is no ( for it to close"), tok.start)
    if tok.kind != "end":
        raise ConditionSyntaxError(N_("unexpected {token}: expected and, or, or the end of the condition"), tok.start,
                                   token=parser.shown(tok))
    return node


# ---------------------------------------------------------------------------------------- evaluator

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}


def evaluate(cond: Condition, args: Mapping[str, Any]) -> bool:
    """Whether `cond` holds for `args` (the group's inputs). ConditionEvalError when it cannot say."""
    if isinstance(cond, Literal):
        if isinstance(cond.value, bool):
            return cond.value
        raise ConditionEvalError(N_("{value} is a value, not a condition: compare it").format(value=cond.to_text()),
                                 cond.offset)
    if isinstance(cond, ArgRef):
        value = _lookup(cond, args)
        if isinstance(value, bool):
            return value
        raise ConditionEvalError(
            N_("$args.{name} is {value}, not true or false: compare it, as in $args.{name} == …").format(
                name=cond.name, value=_describe(value)), cond.offset)
    if isinstance(cond, Not):
        return not evaluate(cond.operand, args)
    if isinstance(cond, _Junction):
        results = [evaluate(o, args) for o in cond.operands]  # every operand: errors never hide
        return all(results) if isinstance(cond, And) else any(results)
    if isinstance(cond, Compare):
        return _compare(cond, args)
    raise ConditionEvalError(f"not a condition: {cond!r}")


def _lookup(ref: ArgRef, args: Mapping[str, Any]) -> Any:
    if ref.name not in args:
        raise ConditionEvalError(N_("$args.{name} has no value").format(name=ref.name), ref.offset)
    return args[ref.name]


_kind = json_type_name


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _describe(value: Any) -> str:
    """`3, a number`: a value and its JSON type, for messages."""
    if value is None:
        return "null"
    return f"{clip(json.dumps(value, ensure_ascii=False, default=repr), 40)}, {_a(_kind(value))}"


def _side(node: Operand, value: Any) -> str:
    if isinstance(node, ArgRef):
        return f"$args.{node.name} ({_describe(value)})"
    return f"{clip(node.to_text(), 40)} ({_a(_kind(value))})"


def _compare(node: Compare, args: Mapping[str, Any]) -> bool:
    left = node.left.value if isinstance(node.left, Literal) else _lookup(node.left, args)
    right = node.right.value if isinstance(node.right, Literal) else _lookup(node.right, args)
    lk, rk, op = _kind(left), _kind(right), node.op

    def fail(why: str) -> ConditionEvalError:
        sides = f"{_side(node.left, left)} {op} {_side(node.right, right)}"
        return ConditionEvalError(N_("cannot evaluate {sides}: {why}").format(sides=sides, why=why), node.op_offset)

    for value in (left, right):
        if isinstance(value, float) and math.isnan(value):
            raise fail(N_("NaN is not a number that can be compared"))
    if op in ("==", "!="):
        if lk != rk:
            raise fail(N_("{operator} needs two values of the same type").format(operator=op))
        return _same(left, right) == (op == "==")
    if op == "contains":
        if isinstance(left, str) and isinstance(right, str):  # both "string"
            return right in left
        if isinstance(left, list | tuple):  # "array"
            return any(_same(item, right) for item in left)
        raise fail(N_("contains needs text in text, or a value in an array"))
    if lk != rk or lk not in ("number", "string"):
        raise fail(N_("{operator} needs two numbers or two strings").format(operator=op))
    return _ORDER[op](left, right)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: like ==, but true is not 1, and arrays and objects compare item by item."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)
