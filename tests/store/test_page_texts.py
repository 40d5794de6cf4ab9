"""A page found as JSON text (`HotColdStore.find_texts`) and read into records off the event loop
(the TinyDB stores' `query`): the same documents as `find`, in the same order, and records that
share nothing with what the store keeps."""

from __future__ import annotations

import json
import logging

import pytest
from support.hotcold import Crash, crash_on_write, open_store
from tinydb import where

from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.runtime import open_store_runtime
from gui.store.adapters import _load_texts


def by_time(fields, doc_id):
    return fields.get("at", 0), doc_id


def at_and_kind(doc) -> dict:
    return {"at": doc.get("at"), "kind": doc.get("kind")}


def parsed(texts) -> list[tuple[str, object]]:
    return [(doc_id, json.loads(text)) for doc_id, text in texts]


def test_find_texts_gives_what_find_gives_hot_and_history_in_order(tmp_path):
    store = open_store(tmp_path, indexer=at_and_kind, segment_docs=3)
    for i in range(10):
        store.put_hot(f"r{i}", {"at": i, "kind": "odd" if i % 2 else "even", "big": 2**70 * i, "text": "é\n"})
        if i < 7:
            store.archive(f"r{i}")
    store.put_hot("an id/with \"quotes\"", {"at": 20, "kind": "odd"})
    odd = where("kind") == "odd"
    for limit, offset in ((3, 0), (3, 2), (None, 0), (2, 5)):
        docs, total = store.find(odd, by_time, limit, offset)
        texts, total_of_texts = store.find_texts(odd, by_time, limit, offset)
        assert total_of_texts == total == 6
        assert parsed(texts) == [(doc.doc_id, dict(doc)) for doc in docs]
    texts, _ = store.find_texts(odd, by_time, limit=2)
    assert [doc_id for doc_id, _ in texts] == ["an id/with \"quotes\"", "r9"]


def test_find_texts_takes_the_hot_copy_of_a_document_a_crash_left_in_both(tmp_path, monkeypatch):
    store = open_store(tmp_path, indexer=at_and_kind)
    store.put_hot("r1", {"at": 1, "kind": "odd", "said": "first"})
    crash_on_write(monkeypatch, store._hot)
    with pytest.raises(Crash):
        store.archive("r1")  # in history, and still hot
    monkeypatch.undo()
    reopened = open_store(tmp_path, indexer=at_and_kind)
    reopened.put_hot("r1", {"at": 1, "kind": "odd", "said": "again"})
    texts, total = reopened.find_texts(where("kind") == "odd", by_time)
    assert (parsed(texts), total) == ([("r1", {"at": 1, "kind": "odd", "said": "again"})], 1)


def run(n: int, result: object = "done") -> RunRecord:
    tool = ToolRecord(index=0, tool="echo", tool_call_id=f"c{n}", status="succeeded", started_at=n,
                      finished_at=n + 1, args={"value": {"nested": [n]}}, result=result)
    return RunRecord(run_id=f"run{n:03d}", sequence="nightly", status="succeeded", created_at=1_700_000_000 + n,
                     finished_at=1_700_000_001 + n, groups=[GroupRecord(index=0, name="g", tools=[tool])])


async def test_a_page_of_runs_shares_nothing_with_the_stored_documents(tmp_path):
    runtime = await open_store_runtime(tmp_path)
    try:
        store = runtime.engine.runs
        await store.save_many([run(n) for n in range(5)])
        page = await store.query(limit=2)
        assert [r.run_id for r in page.items] == ["run004", "run003"] and page.total == 5
        page.items[0].groups[0].tools[0].args["value"]["nested"].append("changed by a reader")
        again = await store.query(limit=1)
        assert again.items[0].groups[0].tools[0].args == {"value": {"nested": [4]}}
        assert again.items[0] == run(4)
    finally:
        await runtime.close()


async def test_a_record_pydantic_cannot_parse_from_its_text_is_read_the_slow_way(tmp_path):
    odd = run(1, result="half a pair \ud800 of surrogates")
    runtime = await open_store_runtime(tmp_path)
    try:
        await runtime.engine.runs.save_many([odd, run(2)])
        page = await runtime.engine.runs.query()
        assert page.items == [run(2), odd] and page.total == 2
    finally:
        await runtime.close()


def test_a_text_that_does_not_fit_is_left_out_with_a_sentence(caplog):
    good = run(1).model_dump_json(by_alias=True)
    with caplog.at_level(logging.WARNING):
        read = _load_texts(RunRecord, [("bad", '{"run_id": "bad", "status": "weird"}'), ("run001", good)])
    assert read == [run(1)]
    assert "the stored RunRecord 'bad' cannot be read and is left out" in caplog.text
