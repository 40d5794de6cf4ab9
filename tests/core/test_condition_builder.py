"""The visual builder's rows: which conditions fit, and rows back to text."""

from __future__ import annotations

import pytest

from gui.core.sequences.conditions.builder import condition_rows, rows_to_text
from gui.core.sequences.conditions.language import parse_condition


def test_true_is_no_rows():
    assert condition_rows(parse_condition("true")) == ([], "and")
    assert rows_to_text([], "and") == "true"


def test_flat_comparisons_become_rows_with_their_joiner():
    rows, joiner = condition_rows(parse_condition('$args.n > 3 or $args.s contains "err" or $args.ok'))
    assert joiner == "or"
    assert rows == [
        {"arg": "n", "op": ">", "value": 3},
        {"arg": "s", "op": "contains", "value": "err"},
        {"arg": "ok", "op": "==", "value": True},
    ]


def test_a_single_comparison_is_one_row():
    assert condition_rows(parse_condition("$args.n >= 1.5")) == ([{"arg": "n", "op": ">=", "value": 1.5}], "and")


@pytest.mark.parametrize(
    "text",
    ["false", "$args.a and $args.b or $args.c", "not $args.a", "3 < $args.n", "$args.a == $args.b"],
)
def test_conditions_a_row_builder_cannot_show_give_none(text: str):
    assert condition_rows(parse_condition(text)) is None


def test_rows_round_trip_through_text():
    rows = [{"arg": "主机", "op": "!=", "value": ""}, {"arg": "n", "op": "<", "value": -2}]
    text = rows_to_text(rows, "and")
    assert text == '$args.主机 != "" and $args.n < -2'
    assert condition_rows(parse_condition(text)) == (rows, "and")


@pytest.mark.parametrize(
    ("rows", "joiner"),
    [
        ([{"arg": "", "op": "==", "value": 1}], "and"),
        ([{"arg": "n", "op": "=~", "value": 1}], "and"),
        ([{"arg": "n", "op": "==", "value": None}], "and"),
        ([{"arg": "n", "op": "=="}], "and"),
        ([{"arg": "n", "op": "==", "value": 1}], "xor"),
    ],
)
def test_rows_that_are_not_a_condition_are_a_value_error(rows: list[dict[str, object]], joiner: str):
    with pytest.raises(ValueError):
        rows_to_text(rows, joiner)


def test_bad_row_error_names_the_row():
    with pytest.raises(ValueError, match="row 2"):
        rows_to_text([{"arg": "a", "op": "==", "value": 1}, {"arg": "9", "op": "==", "value": 1}])
