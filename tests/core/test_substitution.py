"""`$args` substitution: typed whole values, text interpolation, nesting, escapes, errors, references."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui.core.sequences.model import ToolCall
from gui.core.sequences.names import arg_ref, is_valid_name, scan_name
from gui.core.sequences.substitution import (
    SubstitutionError,
    as_text,
    bind,
    bind_literal,
    format_path,
    holds_references,
    references,
    substitute,
    whole_reference,
)

ARGS = {
    "host": "node-a",
    "n": 3,
    "ratio": 0.5,
    "flag": True,
    "off": False,
    "nothing": None,
    "items": [1, "two", {"three": 3}],
    "opts": {"k": "v", "n": [1, 2]},
    "主机": "节点-甲",
}


# -- whole values keep their type --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["host", "n", "ratio", "flag", "off", "nothing", "items", "opts", "主机"])
def test_a_string_that_is_exactly_a_reference_becomes_the_value_with_its_type(name: str):
    result = substitute("$args." + name, ARGS)
    assert result == ARGS[name]
    assert type(result) is type(ARGS[name])


def test_whole_values_are_copies_so_a_tool_cannot_change_the_inputs():
    result = substitute({"list": "$args.items"}, ARGS)
    result["list"].append("extra")
    assert ARGS["items"] == [1, "two", {"three": 3}]


def test_a_reference_with_spaces_around_it_is_text_not_a_whole_value():
    assert substitute(" $args.n", ARGS) == " 3"


# -- interpolation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("ping $args.host", "ping node-a"),
        ("count=$args.n", "count=3"),
        ("r=$args.ratio", "r=0.5"),
        ("flags: $args.flag/$args.off", "flags: true/false"),
        ("value: $args.nothing", "value: null"),
        ("items=$args.items", 'items=[1,"two",{"three":3}]'),
        ("opts=$args.opts", 'opts={"k":"v","n":[1,2]}'),
        ("主机 $args.主机 在线", "主机 节点-甲 在线"),
        ("$args.host-$args.n", "node-a-3"),
        ("$args.host.log", "node-a.log"),
        ("$args.n$args.n", "33"),
    ],
)
def test_references_inside_longer_text_are_interpolated_as_text(template: str, expected: str):
    assert substitute(template, ARGS) == expected


def test_unicode_text_is_interpolated_without_escaping():
    assert substitute("x=$args.v", {"v": ["é", "主"]}) == 'x=["é","主"]'


def test_as_text_writes_json_for_everything_but_strings():
    assert [as_text(v) for v in ("a", 1, 1.5, True, None, [1], {"a": 1})] == [
        "a",
        "1",
        "1.5",
        "true",
        "null",
        "[1]",
        '{"a":1}',
    ]


# -- nesting ----------------------------------------------------------------------------------------


def test_nested_objects_and_arrays_are_substituted_and_keys_are_not():
    value = {"$args.host": "$args.n", "deep": [{"cmd": "ssh $args.host"}, ["$args.flag", 7]], "plain": 1.5}
    assert substitute(value, ARGS) == {
        "$args.host": 3,
        "deep": [{"cmd": "ssh node-a"}, [True, 7]],
        "plain": 1.5,
    }


def test_the_original_value_is_left_untouched():
    value = {"a": ["$args.n"]}
    substitute(value, ARGS)
    assert value == {"a": ["$args.n"]}


def test_values_without_references_come_back_equal():
    value = {"a": [1, None, True, {"b": "text $ with dollars $5 and $arg.x"}]}
    assert substitute(value, {}) == value


def test_tuples_become_lists_as_in_json():
    assert substitute(("$args.n", "x"), ARGS) == [3, "x"]


# -- escapes and near misses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("$$args.host", "$args.host"),
        ("echo $$args.host is $args.host", "echo $args.host is node-a"),
        ("$$args.missing", "$args.missing"),
        ("$$$args.n", "$$args.n"),
        ("$args.", "$args."),
        ("$args.1x", "$args.1x"),
        ("costs $5 and $$", "costs $5 and $$"),
        ("$args", "$args"),
    ],
)
def test_escapes_and_text_that_is_not_a_reference_stay_literal(template: str, expected: str):
    assert substitute(template, ARGS) == expected


def test_an_escaped_reference_is_text_not_a_typed_value():
    assert substitute("$$args.n", ARGS) == "$args.n"


# -- errors -----------------------------------------------------------------------------------------


def test_an_absent_input_names_the_path_and_the_name():
    with pytest.raises(SubstitutionError) as info:
        substitute({"value": {"deep": ["x", "hello $args.who"]}}, ARGS)
    error = info.value
    assert error.path == ("value", "deep", 1)
    assert error.name == "who"
    assert error.offset == len("hello ")
    assert error.message.startswith("args.value.deep[1]: $args.who has no value")
    assert "host" in error.message  # the inputs that were given
    assert str(error) == error.message


def test_an_absent_whole_value_is_an_error_not_an_empty_value():
    with pytest.raises(SubstitutionError) as info:
        substitute({"command": "$args.cmd"}, {})
    assert info.value.path == ("command",)
    assert info.value.offset == 0
    assert "no inputs were given" in info.value.message


def test_a_present_null_is_a_value():
    assert substitute("$args.nothing", ARGS) is None


def test_format_path_reads_like_the_json():
    assert format_path(()) == "args"
    assert format_path(("a", 0, "b")) == "args.a[0].b"


# -- references for the validator -------------------------------------------------------------------


def test_references_give_path_name_and_offset_in_document_order():
    value = {
        "command": "ssh $args.host uptime; echo $args.n",
        "list": ["$args.items", {"主机": "at $args.主机"}],
        "$args.key": "keys are not references",
        "escaped": "$$args.nope",
        "number": 5,
    }
    assert references(value) == [
        (("command",), "host", 4),
        (("command",), "n", 28),
        (("list", 0), "items", 0),
        (("list", 1, "主机"), "主机", 3),
    ]


def test_references_of_a_plain_string_have_an_empty_path():
    assert references("$args.a and $args.b") == [((), "a", 0), ((), "b", 12)]


def test_references_of_values_without_any_are_empty():
    assert references({"a": [1, None, "$$args.x", "$args."]}) == []


def test_whole_reference_recognises_exactly_one_reference():
    assert whole_reference("$args.host") == "host"
    assert whole_reference("$args.主机") == "主机"
    assert whole_reference("$args.host ") is None
    assert whole_reference("$$args.host") is None
    assert whole_reference("$args.a$args.b") is None
    assert whole_reference(arg_ref("n")) == "n"


# -- names, shared with conditions ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["host", "_x", "n2", "主机", "nœud", "Ünïcode_名前"])
def test_names_start_with_a_letter_or_underscore(name: str):
    assert is_valid_name(name)


@pytest.mark.parametrize("name", ["", "2n", "a-b", "a.b", "a b", "$a"])
def test_names_do_not_contain_punctuation_or_start_with_a_digit(name: str):
    assert not is_valid_name(name)


def test_scan_name_stops_at_the_first_character_that_is_not_a_name_character():
    assert scan_name("$args.host-name", 6) == 10
    assert scan_name("$args.-x", 6) == 6


# -- properties -------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=10,
)


@given(json_values)
def test_substitution_fails_exactly_when_a_referenced_name_is_absent(value: object):
    names = {name for _, name, _ in references(value)}
    substitute(value, dict.fromkeys(names, "v"))  # every reference found resolves: nothing raises
    if names:
        with pytest.raises(SubstitutionError):
            substitute(value, {})
    else:
        substitute(value, {})


@pytest.mark.parametrize("args", [
    {"value": 1}, {"text": "no input here", "n": 2.5, "flag": True, "none": None},
    {"nested": {"list": [1, "two", {"three": [3]}]}}, {}])
def test_a_step_without_references_binds_as_bind_would_into_a_fresh_copy(args):
    call = ToolCall(tool="echo", args=args)
    assert call.literal
    bound = bind_literal(call.args)
    assert bound == bind(call.args, {"x": 1})
    if "nested" in bound.args:
        bound.args["nested"]["list"][2]["three"].append(4)  # the tool's copy, not the step's
        assert call.args == args


@pytest.mark.parametrize("text", ["$args.x", "echo $args.x", "literally $$args.x", "a $ sign"])
def test_a_step_with_a_dollar_anywhere_is_bound_by_reading_its_references(text):
    assert not ToolCall(tool="echo", args={"deep": [{"value": text}]}).literal
    assert holds_references({"deep": [{"value": text}]})


def test_a_copy_of_a_step_with_other_args_is_read_again_for_references():
    call = ToolCall(tool="echo", args={"value": 1})
    assert call.literal
    assert not call.model_copy(update={"args": {"value": "$args.x"}}).literal
