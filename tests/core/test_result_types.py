"""A result that cannot fit its output is refused at save, and an output nothing writes is a warning."""

from __future__ import annotations

import pytest
from support.builders import group, seq, tools

from gui.core.sequences.validator import check_document
from gui.core.tools import tool_catalog
from gui.core.tools.registry import Registry
from gui.tools import builtin_tools

CATALOG = tool_catalog(Registry(builtin_tools()))
ASK = {"tool": "ask_user", "args": {"title": "Hi", "questions": [{"prompt": "Name?", "id": "name"}]},
       "as": "answers"}


def check(*groups):
    return check_document(seq(*groups), CATALOG)


def codes(result, severity="errors"):
    return [(p.code, p.loc) for p in getattr(result, severity)]


def test_ask_user_saved_into_text_is_refused_at_the_as_field_in_plain_words():
    result = check(group("q", out={"answers": "string"}, tools=tools(ASK)))
    assert codes(result) == [("result-type", ("groups", 0, "tools", 0, "as"))]
    assert result.errors[0].message == ("Ask questions gives back a group of values, but the output 'answers' holds "
                                        "text: make 'answers' a group of values (object)")
    assert check(group("q", out={"answers": "object"}, tools=tools(ASK))).ok


@pytest.mark.parametrize(("call", "slot_type", "ok"), [
    ({"tool": "cmd_run", "args": {"command": "uptime"}}, "string", True),
    ({"tool": "cmd_run", "args": {"command": "uptime"}}, "number", False),
    ({"tool": "file_read", "args": {"path": "/x"}}, "object", False),
    ({"tool": "file_write", "args": {"path": "/x", "content": ""}}, "object", True),
    ({"tool": "echo", "args": {"value": 3}}, "string", False),
    ({"tool": "echo", "args": {"value": [1]}}, "array", True),
    ({"tool": "echo", "args": {"value": "hi $args.n"}}, "string", True),
    ({"tool": "echo", "args": {"value": "$args.n"}}, "number", True),
    ({"tool": "echo", "args": {"value": "$args.n"}}, "string", False),
    ({"tool": "http_get", "args": {"url": "https://example.com"}}, "number", True),  # unknown until it runs
    ({"tool": "cmd_run", "args": {"command": "uptime"}}, "array", True),  # a list collects anything
])
def test_each_tool_says_what_it_gives_back(call, slot_type, ok):
    result = check(group("g", **{"in": {"n": "number"}}, out={"x": slot_type}, tools=tools({**call, "as": "x"})))
    assert result.ok is ok, result.errors


def test_an_output_no_tool_writes_is_a_warning_unless_an_earlier_group_wrote_it():
    lonely = check(group("g", out={"x": "string", "y": "string"},
                         tools=tools({"tool": "echo", "args": {"value": "a"}, "as": "x"})))
    assert lonely.ok and codes(lonely, "warnings") == [("unwritten-output", ("groups", 0, "out", "y"))]
    provided = check(group("a", out={"y": "string"}, tools=tools({"tool": "echo", "args": {"value": "a"}, "as": "y"})),
                     group("b", **{"in": {"y": "string"}}, out={"y": "string"},
                           tools=tools({"tool": "echo", "args": {"value": "$args.y"}})))
    assert provided.ok and codes(provided, "warnings") == []
