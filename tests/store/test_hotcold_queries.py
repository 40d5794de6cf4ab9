"""HotColdStore's queries and what it reads at open: pages across hot and history, the fields queries
see, settling ended documents, and the catalog of closed segments (the rest is in test_hotcold.py)."""

from __future__ import annotations

import json

import pytest
from support.hotcold import Crash, crash_on_write, ids, open_store
from tinydb import where

from gui.store import history, journal
from gui.store.hotcold import HotColdStore


def by_time(fields, doc_id):
    return fields.get("at", 0), doc_id


def at_and_kind(doc) -> dict:
    return {"at": doc.get("at"), "kind": doc.get("kind")}


def filled(folder, n: int = 10, **kwargs) -> HotColdStore:
    store = open_store(folder, indexer=at_and_kind, segment_docs=3, **kwargs)
    for i in range(n):
        store.put_hot(f"r{i}", {"at": i, "kind": "odd" if i % 2 else "even"})
        if i < n - 2:
            store.archive(f"r{i}")
    return store


def test_find_pages_hot_and_history_alike_largest_first_with_the_total(tmp_path):
    store = filled(tmp_path)
    odd = where("kind") == "odd"
    page, total = store.find(odd, by_time, limit=3)
    assert (ids(page), total) == (["r9", "r7", "r5"], 5)
    page, total = store.find(odd, by_time, limit=3, offset=3)
    assert (ids(page), total) == (["r3", "r1"], 5)
    assert store.find(where("kind") == "none", by_time) == ([], 0)
    assert ids(open_store(tmp_path, indexer=at_and_kind).find(odd, by_time)[0]) == ["r9", "r7", "r5", "r3", "r1"]


def test_find_reads_only_the_segments_that_hold_the_page(tmp_path, monkeypatch):
    filled(tmp_path, n=30).close()
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    opened: list[str] = []
    real = history.open_database

    def counting(path, index=False, **kwargs):
        opened.append(path.name)
        return real(path, index, **kwargs)

    monkeypatch.setattr(history, "open_database", counting)
    page, total = store.find(where("kind") == "even", by_time, limit=2)
    assert (ids(page), total) == (["r28", "r26"], 15)
    assert opened == ["runs-0009.json"]  # of 10 segments, only r26's; r28 is still hot


def test_find_skips_the_history_copy_of_a_document_still_hot(tmp_path, monkeypatch):
    store = open_store(tmp_path, indexer=at_and_kind)
    store.put_hot("r1", {"at": 1, "kind": "odd"})
    crash_on_write(monkeypatch, store._hot)
    with pytest.raises(Crash):
        store.archive("r1")
    reopened = open_store(tmp_path, indexer=at_and_kind)
    assert reopened.find(where("kind") == "odd", by_time) == ([{"at": 1, "kind": "odd"}], 1)


def test_an_index_of_the_first_format_gets_the_query_fields_and_loses_nothing(tmp_path):
    segment = tmp_path / "history" / "runs-0001.json"
    segment.parent.mkdir()
    segment.write_text(json.dumps({"runs": {"a": {"at": 1, "kind": "odd"}, "b": {"at": 2, "kind": "even"},
                                            "stray": {"at": 3, "kind": "odd"}}}))
    (tmp_path / "history" / "runs-0001.index.json").write_text(json.dumps({"ids": ["a", "b"]}))
    store = open_store(tmp_path, indexer=at_and_kind)
    assert store.find(where("kind") == "odd", by_time) == ([{"at": 1, "kind": "odd"}], 1)  # "stray": not listed
    assert ids(store.iter_history()) == ["b", "a"]
    index = json.loads((tmp_path / "history" / "runs-0001.index.json").read_text())
    assert index == {"index": {"a": {"at": 1, "kind": "odd"}, "b": {"at": 2, "kind": "even"}}}


def test_fields_given_with_a_document_are_what_queries_see(tmp_path):
    store = open_store(tmp_path, indexer=at_and_kind)
    store.put_hot("r1", {"at": 5}, fields={"at": 5, "kind": "given"})
    store.finish("r2", {"at": 6}, fields={"at": 6, "kind": "given"})
    store.finish("r1", {"at": 5, "done": True}, fields={"at": 5, "kind": "given"})
    page, total = store.find(where("kind") == "given", by_time)
    assert (ids(page), total) == (["r2", "r1"], 2) and store.list_hot() == []
    assert store.get("r1") == {"at": 5, "done": True}


def test_settle_puts_ended_hot_documents_in_one_write_and_archive_pending_moves_them_together(tmp_path, monkeypatch):
    store = open_store(tmp_path)
    store.put_hot("r1", {"status": "running"})
    store.put_hot("r3", {"status": "running"})
    writes: list[str] = []
    real = store._hot.journal.append
    monkeypatch.setattr(store._hot.journal, "append", lambda line: (writes.append("hot"), real(line))[1])
    waiting = store.settle_all([("r1", {"status": "done"}, {}, True), ("r3", {"status": "done"}, {}, True),
                                ("r2", {"status": "done"}, {}, True)])
    assert waiting and writes == ["hot"]  # both hot ones in one write; the new one went to history
    assert store.get("r1") == {"status": "done"} and "r2" in store.history
    assert open_store(tmp_path).get("r1") == {"status": "done"}  # a crash now: hot, final, found
    assert store.archive_pending() == 2 and store.archive_pending() == 0
    assert store.list_hot() == [] and writes == ["hot", "hot"]
    assert sorted(ids(store.iter_history())) == ["r1", "r2", "r3"]


def test_archive_pending_writes_the_settled_documents_as_settled_without_reading_them_back(tmp_path, monkeypatch):
    """The move takes the documents `settle_all` was given and their journal text (no parse, no render);
    one put again since is read from the hot documents; the segment holds exactly what was settled."""
    store = open_store(tmp_path, indexer=lambda doc: {"status": doc.get("status")})
    for n in range(3):
        store.put_hot(f"r{n}", {"status": "running"})
    settled = {"status": "done", "text": "é \u4e2d \"q\"\n", "deep": {"list": [1, 2.5, None, True]}}
    store.settle_all([("r0", settled, {"status": "done"}, True), ("r1", {"status": "done"}, {"status": "done"}, True),
                      ("r2", {"status": "done"}, {"status": "done"}, True)])
    store.put_hot("r1", {"status": "done", "again": True})  # put again after settling: read when moved
    parsed: list[str] = []
    real = store._hot.value
    monkeypatch.setattr(store._hot, "value", lambda doc_id: (parsed.append(doc_id), real(doc_id))[1])
    assert store.archive_pending() == 3
    assert parsed == ["r1"]
    reopened = open_store(tmp_path, indexer=lambda doc: {"status": doc.get("status")})
    assert reopened.get("r0") == settled and reopened.get("r1") == {"status": "done", "again": True}
    assert reopened.get("r2") == {"status": "done"} and reopened.list_hot() == []


def test_a_compaction_waits_for_the_move_of_settled_documents_and_then_writes_only_what_stays(tmp_path, monkeypatch):
    """Closing settles thousands of ended records in the hot documents, then moves them to history: a
    compaction due in between would write them all into the snapshot only for the move to drop them.
    It waits for the move, whose change finds it due again, and then writes only what stays hot."""
    monkeypatch.setattr(journal, "COMPACT_AT_LEAST", 2_000)
    queued: list = []
    store = open_store(tmp_path, later=queued.append)
    pad = "x" * 100
    for n in range(30):
        store.put_hot(f"r{n}", {"status": "running", "pad": pad})
    store.put_hot("stays", {"status": "running"})
    store.settle_all([(f"r{n}", {"status": "done", "pad": pad}, {}, True) for n in range(30)])
    snapshots: list[dict] = []
    real = store._hot.compact
    monkeypatch.setattr(store._hot, "compact", lambda: (real(), snapshots.append(
        json.loads((tmp_path / "runs.json").read_text())["runs"]))[0])
    while queued:  # the compaction that came due as they were settled
        queued.pop(0)()
    assert snapshots == []  # held: the documents are about to move
    assert store.archive_pending() == 30
    while queued:
        queued.pop(0)()
    assert snapshots == [{"stays": {"status": "running"}}]
    reopened = open_store(tmp_path)
    assert reopened.get("r7") == {"status": "done", "pad": pad} and reopened.get("stays") == {"status": "running"}


def test_archive_hot_moves_what_a_stopped_process_left_final(tmp_path):
    store = open_store(tmp_path, indexer=lambda doc: {"status": doc.get("status")})
    store.put_hot("r1", {"status": "done"})
    store.put_hot("r2", {"status": "running"})
    reopened = open_store(tmp_path, indexer=lambda doc: {"status": doc.get("status")})
    assert reopened.archive_hot(lambda fields: fields.get("status") == "done") == 1
    assert ids(reopened.list_hot()) == ["r2"] and ids(reopened.iter_history()) == ["r1"]


def test_a_reopen_reads_the_closed_segments_from_the_catalog_not_their_indexes(tmp_path, monkeypatch):
    filled(tmp_path, n=30).close()
    first = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)  # reads the indexes, keeps the catalog
    expected = first.find(where("kind") == "even", by_time, limit=4)
    assert (tmp_path / "history" / "runs.catalog.json").exists()
    opened: list[str] = []
    real = history.open_database

    def counting(path, index=False, **kwargs):
        opened.append(path.name)
        return real(path, index, **kwargs)

    monkeypatch.setattr(history, "open_database", counting)
    again = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    assert [name for name in opened if name.endswith(".index.json")] == ["runs-0010.index.json"]  # the latest only
    assert again.find(where("kind") == "even", by_time, limit=4) == expected
    assert len(again) == len(first) == 30


def test_a_segment_changed_since_the_catalog_is_read_from_its_index(tmp_path):
    filled(tmp_path, n=30).close()
    open_store(tmp_path, indexer=at_and_kind, segment_docs=3)  # the catalog
    changed = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    assert changed.delete("r4")  # rewrites the index of an old segment
    reopened = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    assert "r4" not in reopened and reopened.get("r4") is None
    assert "r4" not in ids(reopened.find(where("kind") == "even", by_time)[0])


def test_an_unreadable_catalog_only_means_the_indexes_are_read(tmp_path):
    filled(tmp_path, n=30).close()
    open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    catalog = tmp_path / "history" / "runs.catalog.json"
    for junk in (b"{not json", b'{"format": 1, "segments": {"2": {"stamp": 1}}}',
                 b'{"format": 1, "segments": {"2": {"stamp": [0], "view": {"ids": [1]}}}}'):
        catalog.write_bytes(junk)
        store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
        assert ids(store.find(where("kind") == "odd", by_time, limit=3)[0]) == ["r29", "r27", "r25"]
        assert len(store) == 30
