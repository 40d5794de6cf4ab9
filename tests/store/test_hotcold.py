"""HotColdStore: hot documents, bounded history segments, their indexes, and the crash states between them."""

from __future__ import annotations

import json
import os

import pytest
from support.hotcold import Crash, crash_on_write, ids, open_store
from tinydb import TinyDB

from gui.store.errors import CorruptDatabaseError
from gui.store.journal import stored_documents
from gui.store.storage import AtomicJSONStorage


def segment_files(folder) -> list[str]:
    return sorted(p.name for p in (folder / "history").iterdir())


def test_put_hot_then_get_returns_a_document_carrying_its_id(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "running"})
    doc = store.get("r1")
    assert doc == {"status": "running"} and doc.doc_id == "r1"
    assert store.get("nope") is None


def test_put_hot_replaces_the_document_rather_than_merging(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "running", "pid": 7})
    store.put_hot("r1", {"status": "done"})
    assert store.get("r1") == {"status": "done"}


def test_every_put_is_on_disk_when_it_returns_and_in_tinydb_layout_once_closed(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {"n": 1})
    assert stored_documents(tmp_path / "runs.json", "runs") == {"r1": {"n": 1}}  # the journal has it
    assert open_store(tmp_path).get("r1") == {"n": 1}
    store.close()
    with TinyDB(tmp_path / "runs.json", storage=AtomicJSONStorage) as db:
        assert db.table("runs").get(doc_id="r1") == {"n": 1}


def test_changing_a_returned_document_does_not_change_the_store(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {"steps": [1]})
    store.get("r1")["steps"].append(2)
    store.list_hot()[0]["steps"].append(3)
    assert store.get("r1") == {"steps": [1]}


def test_list_hot_keeps_the_order_documents_were_first_put(tmp_path):
    store = open_store(tmp_path)
    for doc_id in ["b", "a", "c"]:
        store.put_hot(doc_id, {"id": doc_id})
    store.put_hot("b", {"id": "b", "again": True})
    assert ids(store.list_hot()) == ["b", "a", "c"]


def test_archive_moves_a_document_from_hot_to_history(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "done"})
    store.archive("r1")
    assert store.list_hot() == []
    assert store.get("r1") == {"status": "done"}
    assert ids(store.iter_history()) == ["r1"] and store.count_history() == 1
    reopened = open_store(tmp_path)
    assert reopened.get("r1") == {"status": "done"} and reopened.count_history() == 1


def test_archiving_twice_is_harmless_and_an_unknown_id_is_a_key_error(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {})
    store.archive("r1")
    store.archive("r1")
    assert store.count_history() == 1
    with pytest.raises(KeyError):
        store.archive("nope")


def test_history_pages_newest_first_across_segments(tmp_path):
    store = open_store(tmp_path, segment_docs=3)
    for n in range(10):
        store.put_hot(f"r{n}", {"n": n})
        store.archive(f"r{n}")
    assert ids(store.iter_history()) == [f"r{n}" for n in reversed(range(10))]
    assert ids(store.iter_history(limit=4, offset=2)) == ["r7", "r6", "r5", "r4"]
    assert ids(store.iter_history(limit=3, offset=1, newest_first=False)) == ["r1", "r2", "r3"]
    assert store.iter_history(limit=0) == [] and store.iter_history(offset=10) == []
    assert store.count_history() == 10


def test_history_is_split_into_segments_of_bounded_size(tmp_path):
    store = open_store(tmp_path, segment_docs=4)
    for n in range(10):
        store.put_hot(f"r{n}", {"n": n})
        store.archive(f"r{n}")
    assert segment_files(tmp_path) == [
        "runs-0001.index.json", "runs-0001.json",
        "runs-0002.index.json", "runs-0002.json",
        "runs-0003.index.json", "runs-0003.json",
    ]
    sizes = [len(json.loads((tmp_path / "history" / f"runs-000{s}.json").read_text())["runs"]) for s in (1, 2, 3)]
    assert sizes == [4, 4, 2]


def test_a_segment_is_also_closed_when_it_reaches_its_byte_bound(tmp_path):
    store = open_store(tmp_path, segment_bytes=250)
    for n in range(4):
        store.put_hot(f"r{n}", {"pad": "x" * 100})
        store.archive(f"r{n}")
    assert len([name for name in segment_files(tmp_path) if name.endswith(".index.json")]) == 2


def test_archiving_rewrites_only_the_latest_segment(tmp_path):
    store = open_store(tmp_path, segment_docs=2)
    for n in range(4):
        store.put_hot(f"r{n}", {"n": n})
        store.archive(f"r{n}")
    history = tmp_path / "history"
    before = {name: os.stat(history / name).st_ino for name in segment_files(tmp_path)}
    store.put_hot("r4", {"n": 4})
    store.archive("r4")
    after = {name: os.stat(history / name).st_ino for name in segment_files(tmp_path)}
    changed = sorted(name for name in after if before.get(name) != after[name])
    assert changed == ["runs-0003.index.json", "runs-0003.json"]


def test_delete_removes_a_document_wherever_it_is(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("hot", {})
    store.put_hot("old", {"secret": "s3cr3t"})
    store.archive("old")
    assert store.delete("hot") and store.delete("old")
    assert not store.delete("never")
    assert store.get("hot") is None and store.get("old") is None
    assert store.count_history() == 0
    assert "s3cr3t" not in (tmp_path / "history" / "runs-0001.json").read_text()
    assert open_store(tmp_path).get("old") is None


def test_add_history_writes_whole_segments_and_refuses_known_ids(tmp_path):
    store = open_store(tmp_path, segment_docs=100)
    assert store.add_history((f"r{n}", {"n": n}) for n in range(250)) == 250
    assert store.count_history() == 250
    assert ids(store.iter_history(limit=2)) == ["r249", "r248"]
    assert len(segment_files(tmp_path)) == 6
    with pytest.raises(ValueError, match="r3"):
        store.add_history([("r3", {})])


def test_other_tables_in_a_file_are_kept(tmp_path):
    with TinyDB(tmp_path / "runs.json", storage=AtomicJSONStorage) as db:
        db.table("meta").insert({"schema": 1})
    store = open_store(tmp_path)
    store.put_hot("r1", {})
    with TinyDB(tmp_path / "runs.json", storage=AtomicJSONStorage) as db:
        assert db.table("meta").all() == [{"schema": 1}]


def test_a_corrupt_hot_file_raises_instead_of_opening_empty(tmp_path):
    (tmp_path / "runs.json").write_text("{garbage")
    with pytest.raises(CorruptDatabaseError) as caught:
        open_store(tmp_path)
    assert caught.value.path == tmp_path / "runs.json"


@pytest.mark.parametrize("doc", [5, "text", [1, 2], None])
def test_a_document_that_is_not_an_object_makes_its_file_corrupt_rather_than_crashing_later(tmp_path, doc):
    (tmp_path / "runs.json").write_text(json.dumps({"runs": {"a": {"ok": 1}, "b": doc}}))
    with pytest.raises(CorruptDatabaseError) as caught:
        open_store(tmp_path)
    assert caught.value.path == tmp_path / "runs.json" and "'b'" in caught.value.reason


@pytest.mark.parametrize("bad", ["", 3, None])
def test_ids_must_be_non_empty_strings(tmp_path, bad):
    with pytest.raises(ValueError):
        open_store(tmp_path).put_hot(bad, {})


def test_a_crash_before_the_index_write_leaves_the_document_hot_only(tmp_path, monkeypatch):
    store = open_store(tmp_path)
    store.put_hot("r0", {"n": 0})
    store.archive("r0")
    store.put_hot("r1", {"n": 1})
    crash_on_write(monkeypatch, store.history._tables[1])
    with pytest.raises(Crash):
        store.archive("r1")

    reopened = open_store(tmp_path)
    assert ids(reopened.list_hot()) == ["r1"]
    assert ids(reopened.iter_history()) == ["r0"] and reopened.count_history() == 1
    reopened.archive("r1")
    assert ids(reopened.iter_history()) == ["r1", "r0"]


def test_a_crash_before_leaving_hot_shows_the_hot_copy_once(tmp_path, monkeypatch):
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "done"})
    crash_on_write(monkeypatch, store._hot)
    with pytest.raises(Crash):
        store.archive("r1")

    reopened = open_store(tmp_path)
    assert ids(reopened.list_hot()) == ["r1"]
    assert reopened.iter_history() == [] and reopened.count_history() == 0
    reopened.put_hot("r1", {"status": "done", "note": "edited after the crash"})
    assert reopened.get("r1")["note"] == "edited after the crash"
    reopened.archive("r1")
    assert reopened.list_hot() == [] and reopened.count_history() == 1
    assert reopened.get("r1")["note"] == "edited after the crash"


def test_a_crash_mid_delete_never_resurrects_the_document(tmp_path, monkeypatch):
    store = open_store(tmp_path)
    store.put_hot("r1", {})
    store.archive("r1")
    crash_on_write(monkeypatch, store.history._segment(1))
    with pytest.raises(Crash):
        store.delete("r1")

    reopened = open_store(tmp_path)
    assert reopened.get("r1") is None and reopened.count_history() == 0
    reopened.put_hot("r2", {})
    reopened.archive("r2")
    segment = json.loads((tmp_path / "history" / "runs-0001.json").read_text())["runs"]
    assert list(segment) == ["r2"]


def test_a_segment_whose_index_is_missing_gets_it_rebuilt(tmp_path):
    store = open_store(tmp_path)
    for n in range(3):
        store.put_hot(f"r{n}", {"n": n})
        store.archive(f"r{n}")
    (tmp_path / "history" / "runs-0001.index.json").unlink()
    reopened = open_store(tmp_path)
    assert ids(reopened.iter_history()) == ["r2", "r1", "r0"]
    assert (tmp_path / "history" / "runs-0001.index.json").exists()


def test_a_corrupt_index_file_raises_at_open(tmp_path):
    store = open_store(tmp_path)
    store.put_hot("r1", {})
    store.archive("r1")
    (tmp_path / "history" / "runs-0001.index.json").write_text('{"ids": "r1"}')
    with pytest.raises(CorruptDatabaseError):
        open_store(tmp_path)


def test_settling_many_new_final_documents_writes_each_segment_once(tmp_path, monkeypatch):
    """A batch of new final documents is appended together (one write per segment it fills), not one
    write of the latest segment per document, which made 100,000 take hours; order is kept around a
    hot document that ends in the same batch."""
    from gui.store.history import History

    store = open_store(tmp_path, segment_docs=100)
    store.put_hot("live", {"n": -1})
    written: list[int] = []
    write = History._write

    def counted(self: History, seg: int, batch: dict, *rest: object) -> None:
        written.append(seg)
        write(self, seg, batch, *rest)

    monkeypatch.setattr(History, "_write", counted)
    items = [(f"r{n}", {"n": n}, {}, True) for n in range(250)]
    items += [("live", {"n": -1, "ended": True}, {}, True)]
    items += [(f"s{n}", {"n": n}, {}, True) for n in range(10)]
    assert store.settle_all(items)  # the hot one waits to be archived
    assert written == [1, 2, 3, 3]
    assert store.count_history() == 260
    assert store.get("live") == {"n": -1, "ended": True}


def test_closing_sends_what_ends_straight_to_history_in_one_write_nothing_put_hot(tmp_path):
    """Closing with thousands waiting put each ended run and request hot, then moved it: written twice."""
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "running"})
    store.put_hot("r2", {"status": "running"})
    store.closing()
    journal = (tmp_path / "runs.journal").read_text()
    assert store.settle_all([("r1", {"status": "stopped"}, {}, True), ("r2", {"status": "stopped"}, {}, True),
                             ("r3", {"status": "running"}, {}, False)]) is False  # nothing left to move
    assert ids(store.list_hot()) == ["r3"]
    assert ids(store.iter_history()) == ["r2", "r1"] and store.get("r1") == {"status": "stopped"}
    written = (tmp_path / "runs.journal").read_text()[len(journal):]
    assert "stopped" not in written  # the hot documents only lost them (and gained r3)

    reopened = open_store(tmp_path)
    assert ids(reopened.list_hot()) == ["r3"]
    assert [(d.doc_id, d["status"]) for d in reopened.iter_history()] == [("r2", "stopped"), ("r1", "stopped")]


def test_a_crash_as_closing_leaves_what_it_ended_as_it_was_before_the_end_was_written(tmp_path, monkeypatch):
    """History is written first, then the hot copies go: a crash in between leaves the older hot copy,
    which reads prefer (the end was never acknowledged: start-up ends the run again)."""
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "running"})
    store.closing()
    crash_on_write(monkeypatch, store._hot)
    with pytest.raises(Crash):
        store.settle_all([("r1", {"status": "stopped"}, {}, True)])

    reopened = open_store(tmp_path)
    assert reopened.get("r1") == {"status": "running"}
    assert ids(reopened.list_hot()) == ["r1"] and reopened.iter_history() == [] and reopened.count_history() == 0
    reopened.put_hot("r1", {"status": "interrupted"})  # what start-up then makes of it
    reopened.archive("r1")
    assert reopened.list_hot() == [] and reopened.count_history() == 1
    assert reopened.get("r1") == {"status": "interrupted"}
