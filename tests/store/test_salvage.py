"""salvage: the whole documents around the damage in a database file, never a fragment of one."""

from __future__ import annotations

import json

import pytest

from gui.store.salvage import salvage

DOCS = {f"r{n}": {"run_id": f"r{n}", "status": "done", "args": {"deep": {"list": [n, {"x": n}]}}} for n in range(5)}
RAW = json.dumps({"runs": DOCS}).encode()


def names_itself(doc_id, doc) -> bool:
    return doc.get("run_id") == doc_id


def test_an_intact_file_gives_every_document_in_order():
    assert salvage(RAW, "runs") == DOCS
    assert list(salvage(RAW, "runs")) == list(DOCS)


@pytest.mark.parametrize("cut", [0.35, 0.5, 0.8, 0.99])
def test_a_file_cut_short_gives_every_document_before_the_cut(cut):
    raw = RAW[: int(len(RAW) * cut)]
    found = salvage(raw, "runs", names_itself)
    whole_before_cut = [k for k in DOCS if json.dumps({k: DOCS[k]})[1:-1].encode() in raw]
    assert list(found) == whole_before_cut and whole_before_cut
    assert all(found[k] == DOCS[k] for k in found)


def test_garbage_in_the_middle_loses_only_the_document_it_hit():
    text = RAW.decode()
    start = text.index('"r2"')
    damaged = (text[: start + 20] + "\x00\x00 not json ]]" + text[start + 40:]).encode()
    found = salvage(damaged, "runs", names_itself)
    assert list(found) == ["r0", "r1", "r3", "r4"]


def test_a_fragment_of_a_broken_document_is_never_taken_for_a_document():
    broken = b'{"runs": {"r0": {"run_id": "r0", "groups": {"g1": {"status": "ok"}, BROKEN'
    assert salvage(broken, "runs", names_itself) == {}
    assert "g1" in salvage(broken, "runs")  # what the check is for: without it, the fragment looks whole


def test_valid_json_of_the_wrong_shape_keeps_the_documents_that_are_objects():
    raw = json.dumps({"runs": {"r0": DOCS["r0"], "bad": [1, 2], "r1": DOCS["r1"]}}).encode()
    assert salvage(raw, "runs") == {"r0": DOCS["r0"], "r1": DOCS["r1"]}
    assert salvage(b"[1, 2, 3]", "runs") == {}
    assert salvage(b'{"other": {"a": {}}}', "runs") == {}


@pytest.mark.parametrize("raw", [b"", b"garbage", b"\xff\xfe\x00binary", b'{"runs": ', b"{{{{"])
def test_nothing_readable_gives_nothing_without_raising(raw):
    assert salvage(raw, "runs", names_itself) == {}


def test_a_damaged_head_still_finds_the_documents_after_it():
    text = RAW.decode()
    damaged = ("#!garbage" + text[text.index("{", 1):]).encode()  # the file's head (and table name) lost
    assert list(salvage(damaged, "runs", names_itself)) == [f"r{n}" for n in range(5)]
