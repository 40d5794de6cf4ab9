"""The TinyDB storages and tables: parsed once, written atomically, documents replaced whole and copied out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tinydb import TinyDB, where
from tinydb.table import Document

from gui.store import storage as storage_module
from gui.store.database import IndexTable, open_database
from gui.store.files import dumps
from gui.store.storage import AtomicJSONStorage, WholeDocumentStorage


def test_the_file_is_read_once_and_never_again(tmp_path, monkeypatch):
    path = tmp_path / "db.json"
    path.write_text(json.dumps({"runs": {"a": {"n": 1}}}))
    db = open_database(path)
    table = db.table("runs")

    def no_reading(self, *args, **kwargs):
        raise AssertionError(f"{self} was read again")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    table.put("b", {"n": 2})
    assert table.get(doc_id="a") == {"n": 1} and table.search(where("n") == 2) == [{"n": 2}]
    table.commit(remove=["a"])
    assert table.ids() == ["b"]
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"runs": {"b": {"n": 2}}}


def test_a_write_renders_only_the_documents_that_changed(tmp_path, monkeypatch):
    table = open_database(tmp_path / "db.json").table("runs")
    table.commit(put={f"r{n}": {"n": n, "pad": "x" * 50} for n in range(100)})
    rendered: list[object] = []
    real = storage_module.dumps
    monkeypatch.setattr(storage_module, "dumps", lambda obj: rendered.append(obj) or real(obj))
    table.put("r7", {"n": 7, "pad": "changed"})
    assert {"n": 7, "pad": "changed"} in rendered and len([o for o in rendered if isinstance(o, dict)]) == 1
    on_disk = json.loads((tmp_path / "db.json").read_text())["runs"]
    assert len(on_disk) == 100 and on_disk["r7"] == {"n": 7, "pad": "changed"} and on_disk["r8"]["n"] == 8


def test_the_storage_renders_exactly_what_json_would(tmp_path):
    storage = WholeDocumentStorage(tmp_path / "db.json")
    data = {"t": {"é": {"s": "\ud800 \u2028 \"q\"", "n": [1.5, None, True]}}, "other": {}}
    storage.write(data)
    storage.write({**data, "t": {**data["t"], "b": {"x": 1}}})
    assert json.loads((tmp_path / "db.json").read_text()) == {**data, "t": {**data["t"], "b": {"x": 1}}}
    assert (tmp_path / "db.json").read_bytes().isascii()


def test_a_failed_write_after_an_in_place_update_leaves_what_is_on_disk(tmp_path, monkeypatch):
    path = tmp_path / "db.json"
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        db.insert({"n": 1, "tags": ["a"]})
        monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
        with pytest.raises(OSError):
            db.update({"n": 2}, doc_ids=[1])  # TinyDB changes the stored dict in place, then writes
        monkeypatch.undo()
        assert db.all() == [{"n": 1, "tags": ["a"]}]  # not the change that never reached the disk


def test_documents_are_replaced_whole_never_merged_or_edited_in_place(tmp_path):
    table = open_database(tmp_path / "db.json").table("runs")
    table.put("a", {"x": 1, "y": 2})
    table.put("a", {"x": 3})
    assert table.get(doc_id="a") == {"x": 3}
    for change in (lambda: table.update({"x": 4}, doc_ids=["a"]), lambda: table.upsert(Document({"x": 4}, "a"))):
        with pytest.raises(TypeError, match="replaced whole"):
            change()
    with pytest.raises(TypeError, match="their own id"):
        table.insert({"x": 5})
    assert table.ids() == ["a"]


def test_what_a_table_returns_or_is_given_is_never_shared_with_it(tmp_path):
    table = open_database(tmp_path / "db.json").table("runs")
    given = {"steps": [1], "deep": {"k": [1]}}
    table.put("a", given)
    given["steps"].append("changed by the caller")
    table.get(doc_id="a")["deep"]["k"].append(2)
    table.search(where("steps").exists())[0]["steps"].append(3)
    table.all()[0]["deep"]["k"].append(4)
    assert table.get(doc_id="a") == {"steps": [1], "deep": {"k": [1]}}
    assert json.loads((tmp_path / "db.json").read_text())["runs"]["a"] == {"steps": [1], "deep": {"k": [1]}}


def test_documents_are_read_by_their_string_ids_and_copied_out(tmp_path):
    table = open_database(tmp_path / "db.json").table("runs")
    table.commit(put={"b": {"n": 2, "deep": {"k": [1]}}, "a": {"n": 1}})
    doc = table.doc("b")
    assert doc == {"n": 2, "deep": {"k": [1]}} and doc.doc_id == "b" and table.doc("missing") is None
    doc["deep"]["k"].append(2)
    found = table.docs(where("n") == 2)
    assert list(found) == ["b"] and found["b"].doc_id == "b" and found["b"]["deep"] == {"k": [1]}
    assert list(table.docs()) == ["b", "a"]  # in the order first put


@pytest.mark.parametrize("odd", [float("inf"), 2**70, "\ud800 é 中", [1, 2.0, True, None]])
def test_a_copied_out_document_keeps_values_that_orjson_would_write_otherwise(tmp_path, odd):
    table = open_database(tmp_path / "db.json").table("runs")
    table.put("a", {"odd": odd, "deep": {"list": [odd]}})
    doc = table.doc("a")
    assert doc == {"odd": odd, "deep": {"list": [odd]}} and type(doc["deep"]["list"][0]) is type(odd)
    doc["deep"]["list"].append("changed")
    assert open_database(tmp_path / "db.json").table("runs").doc("a") == table.doc("a") == {"odd": odd,
                                                                                           "deep": {"list": [odd]}}


def test_an_index_database_makes_index_tables_of_the_same_string_ids(tmp_path):
    table = open_database(tmp_path / "index.json", index=True).table("index")
    assert isinstance(table, IndexTable)
    table.put("r1", {"status": "running"})
    assert table.doc("r1") == {"status": "running"} and table.doc("r1").doc_id == "r1"
    assert {i: dict(d) for i, d in table.docs().items()} == {"r1": {"status": "running"}}


def test_dumps_writes_what_the_standard_encoder_would_read_back_the_same():
    """`dumps` takes orjson's text only when it is ASCII and reads back equal: what orjson writes
    otherwise (NaN and infinities as null), refuses (huge integers, keys that are not text, a lone
    surrogate) or leaves unescaped is written by the standard encoder, as before."""
    standard = json.JSONEncoder(separators=(",", ":"))
    for value in ({"a": float("nan")}, {"b": float("-inf")}, {"c": 2**70}, {1: "x"}, {"s": "\ud800"}, {"é": "ü"}):
        assert dumps(value) == standard.encode(value)
    plain = {"f": 1e16, "g": -0.0, "l": [1, 2.5, None, True], "t": "a \"q\" \n \u2028", "n": {"x": []}}
    text = dumps(plain)
    assert text.isascii() and json.loads(text) == plain and list(json.loads(text)) == list(plain)



@pytest.mark.parametrize("doc_id", ["plain-id_1.2:x", "with space", 'a"quote', "back\\slash", "ctrl\x01", "naïve",
                                    "日本"])
def test_each_documents_span_is_where_its_json_lies_whatever_its_id(tmp_path, doc_id):
    """The spans kept after a write point at each document's JSON in the file: found without rendering
    an id that needs no escaping, and by its rendered key for one that does."""
    storage = WholeDocumentStorage(tmp_path / "db.json")
    docs = {"before": {"n": 1}, doc_id: {"text": "é and \"q\"", "n": [1, 2.5]}, "after": {"n": None}}
    storage.write({"t": docs, "other": {"x": {"y": 1}}})
    raw = (tmp_path / "db.json").read_bytes()
    for table, held in (("t", docs), ("other", {"x": {"y": 1}})):
        assert set(storage.spans[table]) == set(held)
        for key, (start, end) in storage.spans[table].items():
            assert json.loads(raw[start:end]) == held[key]
