"""A page of history reads only its own documents' bytes from a segment nobody parsed, where the
segment's index file says they lie (`gui.store.slices`), and never trusts that once the segment
file is not the one it describes."""

from __future__ import annotations

import json
import os

from support.hotcold import open_store
from tinydb import where

from gui.store.slices import TABLE


def by_time(fields, doc_id):
    return fields.get("at", 0), doc_id


def at_and_kind(doc) -> dict:
    return {"at": doc.get("at"), "kind": doc.get("kind")}


def parsed(texts) -> list[tuple[str, object]]:
    return [(doc_id, json.loads(text)) for doc_id, text in texts]


def document(i: int) -> dict:
    return {"at": i, "kind": "odd" if i % 2 else "even", "big": 2**70 * i, "text": "é\n" * i, "n": float(i)}


def archived(folder, count: int = 9):
    store = open_store(folder, indexer=at_and_kind, segment_docs=3)
    for i in range(count):
        store.put_hot(f"r{i}", document(i))
    for i in range(count):
        store.archive(f"r{i}")
    store.close()


def test_a_page_of_a_segment_nobody_parsed_reads_only_its_documents(tmp_path):
    archived(tmp_path)
    index = json.loads((tmp_path / "history" / "runs-0001.index.json").read_text())
    assert set(index) == {"index", TABLE}  # kept beside the index, in the same file
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    texts, total = store.find_texts(where("kind") == "odd", by_time, limit=3, offset=1)
    assert store.history._segments == {}  # no segment was parsed
    assert total == 4 and parsed(texts) == [(f"r{i}", document(i)) for i in (5, 3, 1)]
    everything, _ = store.find_texts(where("at") >= 0, by_time)
    assert parsed(everything) == [(f"r{i}", document(i)) for i in range(8, -1, -1)]
    assert store.history._segments == {}


def test_a_document_replaced_in_history_is_read_as_it_now_is(tmp_path):
    archived(tmp_path)
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    store.history.replace("r1", {**document(1), "text": "longer now " * 40}, at_and_kind(document(1)))
    store.close()
    reopened = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    texts, _ = reopened.find_texts(where("kind") == "odd", by_time)
    assert reopened.history._segments == {}
    assert parsed(texts)[-1] == ("r1", {**document(1), "text": "longer now " * 40})


def test_a_segment_written_behind_the_stores_back_is_parsed_not_sliced(tmp_path):
    archived(tmp_path)
    segment = tmp_path / "history" / "runs-0001.json"
    data = json.loads(segment.read_text())
    data["runs"]["r0"]["text"] = "changed by hand, and longer than it was"
    segment.write_text(json.dumps(data, indent=2))  # every document moves within the file
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    texts, _ = store.find_texts(where("at") < 3, by_time)
    assert parsed(texts) == [("r2", document(2)), ("r1", document(1)),
                             ("r0", {**document(0), "text": "changed by hand, and longer than it was"})]
    assert list(store.history._segments) == [1]  # read by parsing it


def test_a_segment_whose_index_lost_a_document_is_parsed(tmp_path):
    archived(tmp_path)
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    assert store.history.remove("r4")
    store.close()
    reopened = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    texts, total = reopened.find_texts(where("at") >= 3, by_time)
    assert total == 5 and [doc_id for doc_id, _ in texts] == ["r8", "r7", "r6", "r5", "r3"]
    assert parsed(texts)[-1] == ("r3", document(3))


def test_slices_are_not_read_from_a_file_they_do_not_describe(tmp_path):
    archived(tmp_path)
    segment = tmp_path / "history" / "runs-0001.json"
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    slices = store.history._slices_of(1)
    assert slices is not None
    assert {i: json.loads(text) for i, text in (slices.read(segment, ["r1"]) or {}).items()} == {"r1": document(1)}
    written = segment.stat().st_mtime_ns
    os.utime(segment, ns=(written, written + 1))  # the same bytes, written again since
    assert slices.read(segment, ["r1"]) is None
    assert slices.read(segment.with_name("gone.json"), ["r1"]) is None
    texts, _ = store.find_texts(where("at") == 1, by_time)
    assert parsed(texts) == [("r1", document(1))] and list(store.history._segments) == [1]


def test_slices_whose_offsets_fall_outside_the_file_send_the_page_back_to_parsing(tmp_path):
    from gui.store.catalog import stamp
    from gui.store.slices import Slices

    segment = tmp_path / "seg.json"
    segment.write_bytes(b'{"a": {"x": 1}}')
    good = Slices(stamp(segment), {"a": (6, 14)})
    assert good.read(segment, ["a"]) == {"a": b'{"x": 1}'}
    for span in ((14, 6), (-4, 3), (6, 400)):  # backwards, before the file, past its end
        assert Slices(stamp(segment), {"a": span}).read(segment, ["a"]) is None
