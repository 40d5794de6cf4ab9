"""Every error code of the sequence format, each asserted with its code and its location."""

from __future__ import annotations

import json

import pytest
from support.builders import group, seq, tools

from gui.core.sequences.catalog_view import CatalogView
from gui.core.sequences.help import EXAMPLE, SEED_EXAMPLE
from gui.core.sequences.model import SlotType
from gui.core.sequences.validator import check_document, check_text
from gui.core.tools import tool_catalog
from gui.tools import default_registry


def codes(result) -> list[tuple[str, tuple]]:
    return [(p.code, p.loc) for p in result.errors]


def only(result, code: str):
    matching = [p for p in result.errors if p.code == code]
    assert matching, f"expected {code}, got {codes(result)}"
    return matching[0]


# -- the seed's three pitfalls ---------------------------------------------------------------------

def test_tools_missing_trailing_semicolon_is_reported_with_offset():
    text = '{"tool":"echo","args":{}}'
    result = check_document(seq(group(tools=text)))
    problem = only(result, "missing-trailing-semicolon")
    assert problem.loc == ("groups", 0, "tools")
    assert problem.offset == len(text)


@pytest.mark.parametrize("value", ["", "{}", '{"host":"string"}'])
def test_in_given_as_string_is_rejected_and_says_to_write_an_object(value):
    result = check_document(seq(group(**{"in": value})))
    problem = only(result, "in-not-object")
    assert problem.loc == ("groups", 0, "in")
    assert "object" in problem.message and "{}" in problem.message


def test_out_given_as_string_is_rejected():
    problem = only(check_document(seq(group(out=""))), "out-not-object")
    assert problem.loc == ("groups", 0, "out")


def test_as_naming_an_undeclared_slot_is_an_error_at_the_tool():
    g = group(out={"y": "string"}, tools=tools({"tool": "echo", "args": {}}, {"tool": "echo", "args": {}, "as": "x"}))
    problem = only(check_document(seq(group("first"), g)), "undeclared-slot")
    assert problem.loc == ("groups", 1, "tools", 1, "as")
    assert "'x'" in problem.message and "out" in problem.message


def test_check_formats_location_like_the_issue():
    g = group(tools=tools({"tool": "echo", "args": {}, "as": "x"}))
    problem = only(check_document(seq(group("a"), g)), "undeclared-slot")
    assert str(problem).startswith("groups[1].tools[0].as: slot 'x' is not declared in out")
    assert str(problem).endswith("(undeclared-slot)")


# -- the tools string ----------------------------------------------------------------------------

def test_missing_semicolon_between_tools_never_drops_the_second_tool():
    text = '{"tool":"echo","args":{}} {"tool":"nope_tool","args":{},"as":"zz"} ;'
    result = check_document(seq(group(tools=text)), tool_catalog(default_registry()))
    problem = only(result, "missing-semicolon")
    assert problem.offset == text.index('{"tool":"nope')
    # the second tool was read: its own mistake is reported too
    assert ("undeclared-slot", ("groups", 0, "tools", 1, "as")) in codes(result)


def test_unquoted_keys_are_invalid_json_with_offset_and_a_hint():
    text = '{tool:"echo"} ;'
    problem = only(check_document(seq(group(tools=text))), "invalid-json")
    assert problem.loc == ("groups", 0, "tools")
    assert problem.offset == 1
    assert "double quotes" in problem.message


@pytest.mark.parametrize(("number", "says"), [("NaN", "NaN is not a JSON number"),
                                              ("-Infinity", "-Infinity is not a JSON number"),
                                              ("1e999", "1e999 is too large a number"),
                                              ("9" * 5000, "a number of 5000 digits is too long")])
def test_numbers_json_cannot_carry_are_refused_in_tools_with_offset(number, says):
    text = '{"tool":"echo","args":{"value":' + number + '}} ;'
    problem = only(check_document(seq(group(tools=text))), "invalid-json")
    assert problem.loc == ("groups", 0, "tools") and problem.offset == text.index(number)
    assert says in problem.message


def test_numbers_json_cannot_carry_are_refused_in_a_document_with_offset():
    text = '{"name": "s", "description": NaN, "groups": []}'
    problem = only(check_text(text), "invalid-json")
    assert problem.offset == text.index("NaN") and "NaN is not a JSON number" in problem.message


def test_scan_resumes_after_a_broken_tool():
    text = '{"tool": } ; {"tool":"echo","args":{},"as":"nope"} ;'
    result = check_document(seq(group(tools=text)))
    assert only(result, "invalid-json")
    assert ("undeclared-slot", ("groups", 0, "tools", 1, "as")) in codes(result)


def test_tools_given_as_array_is_bad_type():
    problem = only(check_document(seq(group(tools=[{"tool": "echo"}]))), "bad-type")
    assert problem.loc == ("groups", 0, "tools")
    assert "string" in problem.message


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_tools_string(text):
    assert only(check_document(seq(group(tools=text))), "empty-tools").loc == ("groups", 0, "tools")


def test_unknown_key_in_tool_object():
    problem = only(check_document(seq(group(tools='{"tool":"echo","arg":{}} ;'))), "unknown-field")
    assert problem.loc == ("groups", 0, "tools", 0, "arg")


def test_missing_tool_key():
    problem = only(check_document(seq(group(tools='{"args":{}} ;'))), "missing-field")
    assert problem.loc == ("groups", 0, "tools", 0, "tool")


def test_duplicate_key_in_tool_object_is_not_silently_merged():
    problem = only(check_document(seq(group(tools='{"tool":"echo","tool":"sleep"} ;'))), "duplicate-key")
    assert problem.loc == ("groups", 0, "tools", 0)


def test_args_default_to_empty_object_and_as_is_optional():
    result = check_document(seq(group(tools='{"tool":"echo"} ;')))
    assert result.ok
    assert result.sequence.groups[0].tools[0].args == {}
    assert result.sequence.groups[0].tools[0].as_ is None


# -- slots ---------------------------------------------------------------------------------------

def test_non_array_slot_written_twice_is_an_error_at_the_second_writer():
    g = group(out={"x": "string"}, tools=tools({"tool": "echo", "as": "x"}, {"tool": "echo", "as": "x"}))
    problem = only(check_document(seq(g)), "slot-written-twice")
    assert problem.loc == ("groups", 0, "tools", 1, "as")
    assert "array" in problem.message


def test_array_slot_may_collect_many_writers():
    g = group(out={"x": "array"}, tools=tools({"tool": "echo", "as": "x"}, {"tool": "echo", "as": "x"}))
    assert check_document(seq(g)).ok


def test_unknown_slot_type_is_bad_enum():
    problem = only(check_document(seq(group(**{"in": {"n": "int"}}))), "bad-enum")
    assert problem.loc == ("groups", 0, "in", "n")
    assert "number" in problem.message


def test_type_conflict_across_groups():
    a = group("a", out={"n": "number"}, tools=tools({"tool": "echo", "args": {"value": 1}, "as": "n"}))
    b = group("b", **{"in": {"n": "string"}})
    problem = only(check_document(seq(a, b)), "type-conflict")
    assert problem.loc == ("groups", 1, "in", "n")


# -- $args and conditions --------------------------------------------------------------------------

def test_undeclared_arg_in_args_has_path_and_offset():
    g = group(tools=tools({"tool": "echo", "args": {"value": {"deep": ["x", "hello $args.who"]}}}))
    problem = only(check_document(seq(g)), "undeclared-arg")
    assert problem.loc == ("groups", 0, "tools", 0, "args", "value", "deep", 1)
    assert problem.offset == len("hello ")


def test_condition_may_read_only_declared_inputs():
    problem = only(check_document(seq(group(when="$args.flag == true"))), "undeclared-arg")
    assert problem.loc == ("groups", 0, "when")
    assert problem.offset == 0


def test_condition_that_does_not_parse_is_bad_condition_with_offset():
    g = group(**{"in": {"n": "number"}}, when="$args.n >")
    problem = only(check_document(seq(g)), "bad-condition")
    assert problem.loc == ("groups", 0, "when")
    assert problem.offset is not None


def test_declared_condition_is_fine():
    g = group(**{"in": {"n": "number", "s": "string"}}, when='$args.n > 3 and $args.s contains "err"')
    assert check_document(seq(g)).ok


# -- groups and document -----------------------------------------------------------------------------

def test_duplicate_group_within_sequence():
    problem = only(check_document(seq(group("a"), group("a"))), "duplicate-group")
    assert problem.loc == ("groups", 1, "name")


def test_group_name_used_by_another_saved_sequence():
    view = CatalogView(group_owner={"a": "other"})
    problem = only(check_document(seq(group("a")), view), "duplicate-group")
    assert "other" in problem.message


def test_sequence_named_like_a_group_of_another_saved_sequence_is_refused():
    view = CatalogView(group_owner={"deploy": "other"}, sequence_names=frozenset({"other"}))
    problem = only(check_document(seq(group("g"), name="deploy"), view), "duplicate-name")
    assert problem.loc == ("name",) and "other" in problem.message


def test_updating_a_sequence_may_keep_its_own_group_names():
    view = CatalogView(group_owner={"a": "s"}, sequence_names=frozenset({"s"}))
    assert check_document(seq(group("a"), name="s"), view).ok


def test_empty_groups_array():
    assert only(check_document({"name": "s", "groups": []}), "no-groups").loc == ("groups",)


def test_missing_groups():
    assert only(check_document({"name": "s"}), "missing-field").loc == ("groups",)


@pytest.mark.parametrize("name", ["", "   "])
def test_blank_sequence_name(name):
    assert only(check_document(seq(group(), name=name)), "blank-name").loc == ("name",)


def test_blank_group_name():
    assert only(check_document(seq(group(" "))), "blank-name").loc == ("groups", 0, "name")


@pytest.mark.parametrize("value", ["30", "fast", "-1s", 30, "0s"])
def test_bad_timeout(value):
    assert only(check_document(seq(group(timeout=value))), "bad-timeout").loc == ("groups", 0, "timeout")


@pytest.mark.parametrize("value", ["9" * 400 + "s", "9000h"])
def test_a_timeout_longer_than_a_year_is_refused_at_save_time(value):
    problem = only(check_document(seq(group(timeout=value))), "bad-timeout")
    assert "at most a year" in problem.message


@pytest.mark.parametrize("field", ["missing", "on_error"])
def test_bad_enum_for_missing_and_on_error(field):
    assert only(check_document(seq(group(**{field: "explode"}))), "bad-enum").loc == ("groups", 0, field)


def test_parallel_must_be_boolean():
    assert only(check_document(seq(group(parallel="yes"))), "bad-type").loc == ("groups", 0, "parallel")


def test_unknown_group_field():
    assert only(check_document(seq(group(inputs={}))), "unknown-field").loc == ("groups", 0, "inputs")


def test_groups_and_file_together():
    doc = seq(group())
    doc["file"] = "x.json"
    assert only(check_document(doc), "groups-and-file").loc == ("file",)


def test_invalid_document_text_has_offset():
    problem = only(check_text('{"name": "s", "groups": [}'), "invalid-json")
    assert problem.loc == ()
    assert problem.offset == 25


def test_all_errors_are_collected_not_just_the_first():
    g1 = group("a", **{"in": ""}, timeout="soon")
    g2 = group("a", tools='{"tool":"echo"}')
    result = check_document(seq(g1, g2))
    found = {p.code for p in result.errors}
    assert {"in-not-object", "bad-timeout", "duplicate-group", "missing-trailing-semicolon"} <= found


def test_unknown_tool_is_only_a_warning():
    result = check_document(seq(group(tools='{"tool":"weather.today"} ;')), tool_catalog(default_registry()))
    assert result.ok
    assert [(w.code, w.loc) for w in result.warnings] == [("unknown-tool", ("groups", 0, "tools", 0, "tool"))]


def test_literal_args_are_checked_against_a_known_tool():
    result = check_document(seq(group(tools='{"tool":"cmd_run","args":{}} ;')), tool_catalog(default_registry()))
    problem = only(result, "bad-args")
    assert problem.loc == ("groups", 0, "tools", 0, "args")
    assert "command" in problem.message


def test_arguments_that_do_not_fit_say_which_argument_of_which_tool_of_which_group_in_words():
    g = group("fetch", tools='{"tool":"echo","args":{}} ; {"tool":"echo","args":{"text":"hi"}} ;')
    first, second = [p for p in check_document(seq(g), tool_catalog(default_registry())).errors]
    assert first.message == "in group 'fetch', tool 1 (echo): the argument 'value' is missing"
    assert second.message == ("in group 'fetch', tool 2 (echo): the argument 'value' is missing; "
                              "'text' is not one of its arguments: remove it")
    assert "Field required" not in second.message and "Extra inputs" not in second.message
    # a group without a name is named by its number
    nameless = check_document(seq({"tools": '{"tool":"echo","args":{}} ;'}), tool_catalog(default_registry()))
    assert "in group 1, tool 1 (echo): the argument 'value' is missing" in [p.message for p in nameless.errors]


def test_seq_call_to_itself_is_a_cycle():
    g = group("loop", tools=tools({"tool": "seq_call", "args": {"name": "s", "args": {}}}))
    assert only(check_document(seq(g, name="s")), "cycle").loc == ("groups", 0, "tools", 0, "args", "name")


def test_seq_call_cycle_through_another_saved_sequence():
    view = CatalogView(calls={"other": frozenset({"g"})}, sequence_names=frozenset({"other"}))
    g = group("g", tools=tools({"tool": "seq_call", "args": {"name": "other", "args": {}}}))
    assert only(check_document(seq(g, name="s"), view), "cycle")


# -- signature, help -----------------------------------------------------------------------------------

def test_signature_inputs_exclude_slots_provided_by_earlier_groups():
    a = group("a", **{"in": {"host": "string"}}, out={"summary": "string"},
              tools=tools({"tool": "echo", "args": {"value": "$args.host"}, "as": "summary"}))
    b = group("b", **{"in": {"summary": "string", "limit": "number"}})
    sig = check_document(seq(a, b)).signature
    assert sig.inputs == {"host": SlotType.STRING, "limit": SlotType.NUMBER}
    assert sig.outputs == {"summary": SlotType.STRING}


def test_help_example_parses_and_validates_with_the_real_tools():
    result = check_text(EXAMPLE, tool_catalog(default_registry()))
    assert result.ok, result.errors
    assert not result.warnings
    assert "\n" not in EXAMPLE


def test_seed_chinese_example_parses():
    result = check_text(SEED_EXAMPLE, tool_catalog(default_registry()))
    assert result.ok, result.errors
    assert result.sequence.name == "巡检三节点"
    assert [g.name for g in result.sequence.groups] == ["拉取单台", "异常展开"]
    assert result.signature.inputs == {"host": SlotType.STRING}


def test_check_json_shape():
    data = check_text(EXAMPLE).to_json()
    assert data["ok"] is True and data["errors"] == [] and data["signature"]["inputs"] == {"host": "string"}
    bad = check_document(seq(group(**{"in": ""}))).to_json()
    assert bad["ok"] is False
    assert bad["errors"][0] == {"loc": ["groups", 0, "in"], "code": "in-not-object",
                                "message": bad["errors"][0]["message"]}
    json.dumps(bad)
