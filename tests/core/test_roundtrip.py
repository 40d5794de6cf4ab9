"""Text → tree → text is stable, and the tree survives the trip through JSON storage."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import group, seq, tools

from gui.core.sequences.export import to_document, to_text
from gui.core.sequences.help import EXAMPLE, SEED_EXAMPLE
from gui.core.sequences.model import Sequence
from gui.core.sequences.validator import check_document, check_text, parse_sequence


def test_example_round_trip_is_stable():
    for text in (EXAMPLE, SEED_EXAMPLE):
        tree = parse_sequence(text)
        once = to_text(tree)
        assert parse_sequence(once) == tree
        assert to_text(parse_sequence(once)) == once


def test_single_line_export_parses_back():
    tree = parse_sequence(SEED_EXAMPLE)
    line = to_text(tree, indent=None)
    assert "\n" not in line
    assert parse_sequence(line) == tree


def test_every_field_survives_export():
    g = group("all", description="d", **{"in": {"n": "number"}}, out={"r": "array"}, when="$args.n > 1",
              parallel=False, missing="degrade", timeout="2m", on_error="retry",
              tools=tools({"tool": "echo", "args": {"value": "$args.n"}, "as": "r"},
                          {"tool": "echo", "args": {"value": "x $args.n"}, "as": "r"}))
    tree = parse_sequence(seq(g))
    assert parse_sequence(to_document(tree)) == tree


def test_tree_survives_json_storage():
    tree = parse_sequence(SEED_EXAMPLE)
    assert Sequence.model_validate_json(tree.model_dump_json(by_alias=True)) == tree


names = st.text(alphabet=st.characters(categories=("L",)), min_size=1, max_size=8)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                      max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(name=names, gname=names, value=values)
def test_generated_sequences_round_trip(name, gname, value):
    doc = seq(group(gname, tools=tools({"tool": "echo", "args": {"value": value}})), name=name)
    result = check_document(doc)
    if result.ok:
        text = to_text(result.sequence)
        assert check_text(text).sequence == result.sequence
