"""The `when` language: parsing, offsets of mistakes, strict evaluation, canonical text, builder rows."""

from __future__ import annotations

import pytest

from gui.core.sequences.conditions.language import (
    OPERATORS,
    And,
    ArgRef,
    Compare,
    Condition,
    ConditionEvalError,
    ConditionSyntaxError,
    Literal,
    Not,
    Or,
    evaluate,
    parse_condition,
)


def ref(name: str) -> ArgRef:
    return ArgRef(name)


def cmp(name: str, op: str, value: object) -> Compare:
    return Compare(ArgRef(name), op, Literal(value))


def syntax_error(text: str) -> ConditionSyntaxError:
    with pytest.raises(ConditionSyntaxError) as info:
        parse_condition(text)
    return info.value


def eval_error(text: str, args: dict[str, object]) -> ConditionEvalError:
    with pytest.raises(ConditionEvalError) as info:
        evaluate(parse_condition(text), args)
    return info.value


# -- the spec's examples -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("true", Literal(True)),
        ("false", Literal(False)),
        ("$args.flag == true", cmp("flag", "==", True)),
        ("$args.n > 3", cmp("n", ">", 3)),
        ('$args.s contains "err"', cmp("s", "contains", "err")),
        ('$args.host != ""', cmp("host", "!=", "")),
    ],
)
def test_spec_examples_parse_to_the_expected_tree_and_back_to_the_same_text(text: str, tree: Condition):
    parsed = parse_condition(text)
    assert parsed == tree
    assert parsed.to_text() == text


@pytest.mark.parametrize(
    ("text", "args", "expected"),
    [
        ("true", {}, True),
        ("false", {}, False),
        ("$args.flag == true", {"flag": True}, True),
        ("$args.flag == true", {"flag": False}, False),
        ("$args.n > 3", {"n": 4}, True),
        ("$args.n > 3", {"n": 3}, False),
        ('$args.s contains "err"', {"s": "an error here"}, True),
        ('$args.s contains "err"', {"s": "all fine"}, False),
        ('$args.host != ""', {"host": "node-a"}, True),
        ('$args.host != ""', {"host": ""}, False),
    ],
)
def test_spec_examples_evaluate(text: str, args: dict[str, object], expected: bool):
    assert evaluate(parse_condition(text), args) is expected


# -- grammar -----------------------------------------------------------------------------------------


def test_not_binds_tighter_than_and_which_binds_tighter_than_or():
    parsed = parse_condition("not $args.a or $args.b and $args.c")
    assert parsed == Or((Not(ref("a")), And((ref("b"), ref("c")))))


def test_not_applies_to_a_whole_comparison():
    assert parse_condition("not $args.n > 3") == Not(cmp("n", ">", 3))


def test_parentheses_override_precedence():
    parsed = parse_condition("($args.a or $args.b) and $args.c")
    assert parsed == And((Or((ref("a"), ref("b"))), ref("c")))
    assert evaluate(parsed, {"a": True, "b": False, "c": False}) is False


def test_chains_of_one_operator_are_one_node_with_all_operands():
    assert parse_condition("$args.a and $args.b and $args.c") == And((ref("a"), ref("b"), ref("c")))


def test_redundant_parentheses_disappear_from_the_tree():
    assert parse_condition("((($args.n > 3)))") == cmp("n", ">", 3)


def test_whitespace_is_optional_and_may_be_anything_between_tokens():
    assert parse_condition('\t$args.n>=3\n and($args.s  contains"x")') == And(
        (cmp("n", ">=", 3), cmp("s", "contains", "x"))
    )


@pytest.mark.parametrize("op", OPERATORS)
def test_every_operator_parses(op: str):
    assert parse_condition(f"$args.x {op} 1") == cmp("x", op, 1)


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0), ("42", 42), ("-7", -7), ("3.25", 3.25), ("-0.5", -0.5), ("1e3", 1000.0), ("2.5E-2", 0.025)],
)
def test_numbers_are_ints_or_floats_as_written(text: str, value: float):
    literal = parse_condition(f"$args.n == {text}").right
    assert literal == Literal(value)
    assert type(literal.value) is type(value)


def test_a_whole_number_too_large_for_a_float_is_still_a_number():
    huge = 10**400
    condition = parse_condition(f"$args.n < {huge}")
    assert condition.right == Literal(huge)
    assert evaluate(condition, {"n": 3.5}) is True
    assert parse_condition(condition.to_text()) == condition


def test_string_escapes_follow_json():
    parsed = parse_condition(r'$args.s == "q\" b\\ n\n t\t s\/ u\u00e9 pair\ud83d\ude00"')
    assert parsed.right.value == 'q" b\\ n\n t\t s/ ué pair😀'


def test_unicode_names_are_names():
    text = '$args.主机 != "" and $args.nœud_2 == 1'
    parsed = parse_condition(text)
    assert parsed.references() == [("主机", 0), ("nœud_2", text.index("$args.nœud"))]
    assert evaluate(parsed, {"主机": "a", "nœud_2": 1}) is True


def test_a_bare_reference_is_a_boolean_condition():
    assert parse_condition("$args.flag") == ref("flag")
    assert evaluate(parse_condition("not $args.flag"), {"flag": False}) is True


def test_keywords_may_be_input_names_after_args():
    assert parse_condition("$args.and == $args.true").references() == [("and", 0), ("true", 13)]


def test_literals_are_typed_true_is_not_one_and_three_is_not_three_point_zero():
    assert Literal(True) != Literal(1)
    assert Literal(3) != Literal(3.0)
    assert Literal("a") == Literal("a", offset=9)


# -- references --------------------------------------------------------------------------------------


def test_references_list_every_use_with_the_offset_of_its_dollar_in_order():
    text = '$args.a == 1 or ("x" == $args.b and not $args.a)'
    assert parse_condition(text).references() == [("a", 0), ("b", 24), ("a", 40)]


def test_references_are_empty_for_constants():
    assert parse_condition("true").references() == []


# -- syntax errors: message and offset ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message_part", "offset"),
    [
        ("", "empty condition: write true to always run", 0),
        ("   ", "empty condition: write true to always run", 0),
        ("$args.n 3", "expected an operator (==, !=, >, >=, <, <=, contains) after $args.n", 8),
        ('"err"', 'expected an operator (==, !=, >, >=, <, <=, contains) after "err"', 5),
        ('$args.s == "abc', "unterminated string", 11),
        ('$args.s == "abc\\', "unterminated string", 11),
        ("$args.n > 3)", "unexpected ')'", 11),
        (")", "unexpected ')'", 0),
        ("($args.a", "expected ) to close the ( at character 0", 8),
        ("$args.n >", "expected a value", 9),
        ("$args.n > and", "expected a value", 10),
        ("== 3", "expected a value", 0),
        ("$args.a and", "expected a condition after and", 11),
        ("not", "expected a condition after not", 3),
        ("$args.n == 1 == 2", "comparisons do not chain", 13),
        ("$args.n = 3", "write == to compare", 8),
        ("$args.a && $args.b", "write and instead of &&", 8),
        ("$args.a || $args.b", "write or instead of ||", 8),
        ("!$args.a", "write not instead of !", 0),
        ("$args.s == 'x'", "double quotes", 11),
        ("$args.a AND $args.b", "write and in lowercase", 8),
        ("True", "write true in lowercase", 0),
        ("host == 1", "unknown word host: an input is read as $args.host", 0),
        ("$args.n > 3 $args.m", "expected and, or, or the end", 12),
        ("$args", "expected . and a name after $args", 5),
        ("$args.", "expected a name after $args.", 6),
        ("$args.1x == 1", "expected a name after $args.", 6),
        ("$host == 1", "unknown $host", 0),
        ("$ == 1", "unknown $", 0),
        ('$args.s == "a\\q"', "invalid escape \\q", 13),
        ('$args.s == "\\u12"', "expected 4 hex digits after \\u", 12),
        ("$args.n > 1.", "malformed number 1.", 10),
        ("$args.n > 3abc", "malformed number 3abc", 10),
        ("$args.n > -", "expected a digit after -", 10),
        ("$args.n > 1e999", "number too large", 10),
        ("$args.n > " + "9" * 5000, "number too long", 10),
        ("$args.n # 3", "unexpected character '#'", 8),
        ("(" * 150 + "true" + ")" * 150, "nested too deeply", 100),
        ("not " * 150 + "true", "nested too deeply", 400),
    ],
)
def test_syntax_errors_say_what_was_expected_and_where(text: str, message_part: str, offset: int):
    error = syntax_error(text)
    assert message_part in error.message
    assert error.offset == offset
    assert str(error) == f"{error.message} (at character {offset})"


def test_the_leftmost_mistake_is_reported():
    assert syntax_error("$args.n 3 'x'").offset == 8


def test_non_text_is_a_syntax_error_too():
    assert syntax_error(None).message == "a condition is text, not NoneType"  # type: ignore[arg-type]


# -- evaluation errors: never silently false ---------------------------------------------------------


def test_absent_input_is_an_error_naming_it():
    error = eval_error('$args.host != ""', {})
    assert error.message == "$args.host has no value"
    assert error.offset == 0


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ('$args.n == "3"', {"n": 3}),
        ("$args.flag == 1", {"flag": True}),
        ("$args.flag != 0", {"flag": False}),
        ('$args.x == "a"', {"x": None}),
        ('$args.l == "a"', {"l": ["a"]}),
    ],
)
def test_equality_across_types_is_an_error_not_false(text: str, args: dict[str, object]):
    assert "needs two values of the same type" in eval_error(text, args).message


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ('$args.n > "3"', {"n": 3}),
        ("$args.flag > false", {"flag": True}),
        ("$args.l < 2", {"l": [1]}),
        ("$args.n <= 3", {"n": True}),
    ],
)
def test_ordering_needs_two_numbers_or_two_strings(text: str, args: dict[str, object]):
    assert "needs two numbers or two strings" in eval_error(text, args).message


@pytest.mark.parametrize(
    ("text", "args"),
    [('$args.o contains "a"', {"o": {"a": 1}}), ("$args.s contains 1", {"s": "1"}), ("$args.n contains 1", {"n": 1})],
)
def test_contains_needs_text_in_text_or_a_value_in_an_array(text: str, args: dict[str, object]):
    assert "contains needs text in text, or a value in an array" in eval_error(text, args).message


def test_a_bare_reference_must_hold_a_boolean():
    error = eval_error("$args.n", {"n": 3})
    assert error.message.startswith("$args.n is 3, a number, not true or false")


def test_nan_cannot_be_compared():
    assert "NaN" in eval_error("$args.x > 1", {"x": float("nan")}).message


def test_error_message_shows_both_sides_and_points_at_the_operator():
    error = eval_error('$args.n == "3"', {"n": 3})
    assert error.message.startswith('cannot evaluate $args.n (3, a number) == "3" (a string)')
    assert error.offset == 8


def test_and_or_evaluate_every_operand_so_errors_never_hide():
    assert "$args.zz has no value" in eval_error("$args.n > 1 or $args.zz", {"n": 5}).message
    assert "$args.zz has no value" in eval_error("false and $args.zz", {}).message


def test_a_literal_that_is_not_a_boolean_is_not_a_condition():
    with pytest.raises(ConditionEvalError):
        evaluate(Literal(3), {})


# -- evaluation semantics ----------------------------------------------------------------------------


def test_numbers_compare_across_int_and_float():
    assert evaluate(parse_condition("$args.n == 3.0"), {"n": 3}) is True
    assert evaluate(parse_condition("$args.n >= -1.5"), {"n": -1}) is True


def test_strings_are_ordered_lexicographically():
    assert evaluate(parse_condition('$args.s < "b"'), {"s": "abc"}) is True


def test_array_contains_a_value_by_json_equality():
    args = {"tags": ["a", 1, True]}
    assert evaluate(parse_condition('$args.tags contains "a"'), args) is True
    assert evaluate(parse_condition("$args.tags contains 2"), args) is False
    assert evaluate(parse_condition("$args.flags contains 1"), {"flags": [True]}) is False


def test_arrays_and_objects_compare_item_by_item_and_true_is_not_one():
    assert evaluate(parse_condition("$args.a == $args.b"), {"a": [1, {"k": "v"}], "b": [1, {"k": "v"}]})
    assert not evaluate(parse_condition("$args.a == $args.b"), {"a": [True], "b": [1]})
    assert evaluate(parse_condition("$args.a != $args.b"), {"a": {"k": 1}, "b": {"j": 1}})


def test_two_inputs_can_be_compared():
    assert evaluate(parse_condition("$args.used < $args.quota"), {"used": 1, "quota": 2}) is True


# -- canonical text ----------------------------------------------------------------------------------


def test_to_text_is_canonical_and_keeps_needed_parentheses():
    tree = parse_condition('  ( $args.a or $args.b )and not( $args.n>3 and $args.s contains"x\\n" ) ')
    assert tree.to_text() == '($args.a or $args.b) and not ($args.n > 3 and $args.s contains "x\\n")'
    assert Or((And((ref("a"), ref("b"))), ref("c"))).to_text() == "$args.a and $args.b or $args.c"
    assert And((And((ref("a"), ref("b"))), ref("c"))).to_text() == "($args.a and $args.b) and $args.c"


def test_builder_made_trees_render_as_text():
    tree = And((cmp("主机", "!=", ""), Not(ref("dry_run"))))
    assert tree.to_text() == '$args.主机 != "" and not $args.dry_run'
    assert str(tree) == tree.to_text()


@pytest.mark.parametrize(
    "build",
    [
        lambda: ArgRef("1x"),
        lambda: ArgRef(""),
        lambda: Compare(ArgRef("a"), "=", Literal(1)),
        lambda: Literal(None),
        lambda: Literal(float("inf")),
        lambda: And((ref("a"),)),
    ],
)
def test_trees_that_cannot_be_written_as_text_are_refused_when_built(build):
    with pytest.raises((ValueError, TypeError)):
        build()


@pytest.mark.parametrize("text", ['⤷host != ""', '⤷ host != ""'])
def test_an_input_written_as_the_editors_mark_says_how_a_condition_reads_it_and_that_parses(text):
    with pytest.raises(ConditionSyntaxError) as caught:
        parse_condition(text)
    assert caught.value.offset == 0
    assert caught.value.message.startswith("a condition reads an input as $args.host: write that instead of ⤷")
    assert parse_condition('$args.host != ""').references() == [("host", 0)]
