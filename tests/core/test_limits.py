"""How large a sequence may be (`gui.core.sequences.limits`): over a limit, one problem that names the limit,
whichever way the document came (decoded, as text, from a file, through the door)."""

from __future__ import annotations

import json
import time

import pytest

from gui.core.door.documents import load_document_file
from gui.core.sequences.limits import MAX_DOCUMENT_BYTES, MAX_GROUPS, MAX_TOOLS
from gui.core.sequences.problems import DslError
from gui.core.sequences.validator import InvalidSequenceError, check_document, check_text
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

TOOL = json.dumps({"tool": "echo", "args": {"value": "$args.host"}, "as": "r"}) + " ;"


def many(groups: int, tools_each: int = 1, name: str = "big") -> dict:
    return {"name": name, "description": "",
            "groups": [{"name": f"{name}-{g}", "in": {"host": "string"}, "out": {"r": "array"},
                        "tools": " ".join([TOOL] * tools_each)} for g in range(groups)]}


def the_problem(result) -> object:
    assert len(result.errors) == 1, [str(p) for p in result.errors]
    return result.errors[0]


def test_a_sequence_at_the_group_limit_is_valid():
    assert check_document(many(MAX_GROUPS)).ok


def test_one_group_more_is_refused_with_a_sentence_naming_the_limit_and_nothing_else_is_read():
    doc = many(MAX_GROUPS + 1)
    doc["groups"][5]["tools"] = "not even JSON"  # not looked at: the size is said first, alone
    problem = the_problem(check_document(doc))
    assert (problem.code, problem.loc) == ("too-many-groups", ("groups",))
    assert problem.message.startswith(f"the sequence has {MAX_GROUPS + 1} groups, more than the {MAX_GROUPS} "
                                      "one sequence may have: split it into several sequences")


def test_more_tools_than_the_limit_in_all_groups_together_is_refused():
    each = 100
    groups = MAX_TOOLS // each + 1
    problem = the_problem(check_document(many(groups, each)))
    assert (problem.code, problem.loc) == ("too-many-tools", ("groups",))
    assert f"has {groups * each} tools in all its groups, more than the {MAX_TOOLS}" in problem.message
    assert check_document(many(MAX_TOOLS // each, each)).ok


def test_a_decoded_document_over_the_byte_limit_is_refused_without_counting_it_all():
    doc = many(1)
    doc["description"] = "x" * MAX_DOCUMENT_BYTES
    problem = the_problem(check_document(doc))
    assert (problem.code, problem.loc) == ("too-large", ())
    assert problem.message.startswith("the sequence is more than 2 MB of JSON, the most one sequence may be")


def test_a_text_over_the_byte_limit_names_its_size_and_the_limit():
    text = json.dumps({**many(1), "description": "é" * (MAX_DOCUMENT_BYTES // 2 + 1000)}, ensure_ascii=False)
    problem = the_problem(check_text(text))
    assert problem.code == "too-large"
    assert problem.message.startswith("the sequence is 2.0 MB of JSON, more than the 2 MB one sequence may be")


def test_a_file_over_the_byte_limit_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB that would take a while to read and parse
    started = time.perf_counter()
    with pytest.raises(DslError) as caught:
        load_document_file(str(path))
    assert time.perf_counter() - started < 5
    problem = caught.value.errors[0]
    assert (problem.code, problem.loc) == ("too-large", ("file",))
    assert "is 200 MB of JSON, more than the 2 MB" in problem.message


async def test_the_door_refuses_a_sequence_over_the_limit_to_save_and_to_run():
    engine = compose_engine(default_registry(), MemoryStores())
    try:
        with pytest.raises(InvalidSequenceError) as saved:
            await engine.create(many(MAX_GROUPS + 1))
        with pytest.raises(InvalidSequenceError) as ran:
            await engine.start_document(many(MAX_GROUPS + 1), {"host": "h"})
        for caught in (saved, ran):
            assert [p.code for p in caught.value.errors] == ["too-many-groups"]
        assert await engine.list_sequences() == []
    finally:
        await engine.close()
