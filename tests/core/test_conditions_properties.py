"""Properties of the condition language: any text parses or gives its own error; text round-trips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gui.core.sequences.conditions.language import (
    OPERATORS,
    And,
    ArgRef,
    Compare,
    Condition,
    ConditionSyntaxError,
    Literal,
    Not,
    Or,
    parse_condition,
)
from gui.core.sequences.names import is_valid_name

_TOKENS = ["$args.a", "$args.主机", "==", "!=", ">", ">=", "<", "<=", "contains", "and", "or", "not"]
_TOKENS += ["(", ")", "true", "false", '"x"', '"\\u00e9"', "3", "-2.5e1", " ", "'", "=", "$", "\\", '"']
token_soup = st.lists(st.sampled_from(_TOKENS), max_size=14).map("".join)

names = st.text(st.characters(categories=("L", "Nd")) | st.just("_"), min_size=1, max_size=6).filter(is_valid_name)
literals = st.one_of(
    st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)
).map(Literal)
operands = literals | names.map(ArgRef)
leaves = st.one_of(
    st.builds(Compare, operands, st.sampled_from(OPERATORS), operands), names.map(ArgRef), st.booleans().map(Literal)
)
trees = st.recursive(
    leaves,
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
    ),
    max_leaves=12,
)


def _parse_or_syntax_error(text: str) -> None:
    try:
        tree = parse_condition(text)
    except ConditionSyntaxError as error:
        assert 0 <= error.offset <= len(text)
        assert error.message
        return
    assert parse_condition(tree.to_text()) == tree
    for name, offset in tree.references():
        assert text.startswith("$args." + name, offset)


@settings(max_examples=400)
@given(st.text())
def test_any_text_parses_or_raises_only_condition_syntax_error(text: str):
    _parse_or_syntax_error(text)


@settings(max_examples=400)
@given(token_soup)
def test_any_token_soup_parses_or_raises_only_condition_syntax_error(text: str):
    _parse_or_syntax_error(text)


@settings(max_examples=300)
@given(trees)
def test_to_text_parses_back_to_an_equal_tree(tree: Condition):
    assert parse_condition(tree.to_text()) == tree
