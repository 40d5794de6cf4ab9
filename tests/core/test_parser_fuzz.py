"""Whatever it is given, the parser returns a tree or raises DslError: never anything else."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui.core.sequences.parser import split_tools
from gui.core.sequences.problems import DslError
from gui.core.sequences.validator import check_document, check_text, parse_sequence

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "groups", "tools", "in", "out", "when", "as", "tool", "args", "x", "timeout",
                         "parallel", "missing", "on_error", "description", "file"]) | st.text(max_size=5),
        c, max_size=5),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_arbitrary_text_gives_a_tree_or_dsl_error(text):
    try:
        parse_sequence(text)
    except DslError:
        pass
    result = check_text(text)
    assert result.ok or result.errors


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_arbitrary_json_gives_a_tree_or_dsl_error(value):
    try:
        parse_sequence(value if isinstance(value, dict) else json.dumps(value))
    except DslError:
        pass
    check_document(value)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]";:,\\ atoolrgs"1', max_size=80))
def test_arbitrary_tools_strings_never_crash(text):
    found, problems = split_tools(text, ("groups", 0, "tools"))
    for p in problems:
        assert p.offset is None or 0 <= p.offset <= len(text)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_json_inside_a_group(value):
    check_document({"name": "s", "groups": [value]})
    check_document({"name": "s", "groups": [{"name": "g", "tools": value, "in": value, "when": value}]})


def test_deeply_nested_document_is_an_error_not_a_crash():
    text = "[" * 100_000 + "]" * 100_000
    result = check_text(text)
    assert not result.ok
