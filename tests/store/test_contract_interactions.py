"""The interaction store contract, over the memory and the TinyDB store: save, get, list, query."""

from __future__ import annotations

import json

import pytest
from contract_support import Backend, ids, interaction

from gui.core.queries import StoredText


async def test_a_saved_request_comes_back_equal_and_unknown_ids_are_none(backend: Backend):
    record = interaction("a1", kind="tool")
    await backend.interactions.save(record)
    assert await backend.interactions.get("a1") == record
    assert await backend.interactions.get("zz") is None
    await backend.reopen()
    assert await backend.interactions.get("a1") == record


async def test_an_answer_replaces_the_pending_request_and_leaves_the_pending_list(backend: Backend):
    await backend.interactions.save(interaction("a1", created_at=1))
    await backend.interactions.save(interaction("a2", created_at=2))
    await backend.interactions.save(interaction("a1", created_at=1, status="resolved"))
    assert ids(await backend.interactions.list("pending")) == ["a2"]
    assert ids(await backend.interactions.list("resolved")) == ["a1"]
    assert (await backend.interactions.get("a1")).status == "resolved"
    await backend.reopen()
    assert ids(await backend.interactions.list("pending")) == ["a2"]
    assert (await backend.interactions.get("a1")).result.response.decision == "approved"


async def test_list_gives_every_request_oldest_first_ties_by_id(backend: Backend):
    for iid, at, status in [("c", 5, "pending"), ("a", 1, "resolved"), ("b", 5, "expired"), ("d", 3, "pending")]:
        await backend.interactions.save(interaction(iid, created_at=at, status=status))
    assert ids(await backend.interactions.list()) == ["a", "d", "b", "c"]
    assert ids(await backend.interactions.list("pending")) == ["d", "c"]
    assert await backend.interactions.list("cancelled") == []
    await backend.reopen()
    assert ids(await backend.interactions.list()) == ["a", "d", "b", "c"]


async def eight_requests(backend: Backend) -> None:
    specs = [("i1", "shell", "run-1", "resolved", "deploy", "cmd_run"),
             ("i2", "tool", "run-1", "cancelled", "deploy", "file_write"),
             ("i3", "question", "run-2", "resolved", "survey", "cmd_run"),
             ("i4", "shell", "run-2", "expired", "survey", "cmd_run"),
             ("i5", "tool", "run-3", "pending", "deploy", "http_get"),
             ("i6", "shell", "run-3", "pending", "deploy", "cmd_run"),
             ("i7", "question", "run-3", "resolved", "deploy", "cmd_run"),
             ("i8", "tool", "run-4", "resolved", "backup", "file_write")]
    for n, (iid, kind, run_id, status, seq, tool) in enumerate(specs):
        await backend.interactions.save(interaction(iid, kind=kind, run_id=run_id, status=status, sequence=seq,
                                                    tool=tool, created_at=1000 + 10 * n))


@pytest.mark.parametrize(("query", "expected", "total"), [
    ({}, ["i8", "i7", "i6", "i5", "i4", "i3", "i2", "i1"], 8),
    ({"status": "pending"}, ["i6", "i5"], 2),
    ({"status": "resolved"}, ["i8", "i7", "i3", "i1"], 4),
    ({"kind": "approval"}, ["i8", "i6", "i5", "i4", "i2", "i1"], 6),
    ({"kind": "question", "status": "resolved"}, ["i7", "i3"], 2),
    ({"run_id": "run-3"}, ["i7", "i6", "i5"], 3),
    ({"sequence": "deploy", "status": "resolved"}, ["i7", "i1"], 2),
    ({"tool_name": "file_write"}, ["i8", "i2"], 2),
    ({"tool_name": "cmd_run", "kind": "question"}, [], 0),
    ({"run_id": "run-9"}, [], 0),
])
async def test_query_filters_in_the_store_newest_first_with_the_total(backend: Backend, query, expected, total):
    await eight_requests(backend)
    page = await backend.interactions.query(**query)
    assert (ids(page.items), page.total) == (expected, total)
    await backend.reopen()
    page = await backend.interactions.query(**query)
    assert (ids(page.items), page.total) == (expected, total)


async def test_query_texts_gives_what_query_gives_as_json(backend: Backend):
    """A store may give a record as the JSON text it vouches for (`StoredText`): the same JSON value."""
    await eight_requests(backend)
    for query in ({}, {"status": "ended", "limit": 3, "offset": 1}, {"status": "pending"}):
        for _ in range(2):
            read, sent = await backend.interactions.query(**query), await backend.interactions.query_texts(**query)
            assert sent.total == read.total
            assert [json.loads(item.text) if isinstance(item, StoredText) else item.model_dump(mode="json")
                    for item in sent.items] == [r.model_dump(mode="json") for r in read.items]
            await backend.reopen()


async def test_query_pages_history_with_limit_and_offset(backend: Backend):
    await eight_requests(backend)
    pages = [await backend.interactions.query(status="resolved", limit=3, offset=o) for o in (0, 3, 6)]
    assert [ids(p.items) for p in pages] == [["i8", "i7", "i3"], ["i1"], []]
    assert {p.total for p in pages} == {4}
    with pytest.raises(ValueError, match="must not be negative"):
        await backend.interactions.query(limit=-1)


async def test_changing_what_a_query_returned_does_not_change_the_store(backend: Backend):
    await backend.interactions.save(interaction("t1", kind="tool", status="resolved"))
    [got] = (await backend.interactions.query()).items
    got.request.validated_input["nested"]["a"].append(2)
    assert (await backend.interactions.get("t1")).request.validated_input == {"path": "/tmp/x", "nested": {"a": [1]}}


async def test_save_many_is_the_same_as_saving_each_in_turn(backend: Backend):
    await backend.interactions.save(interaction("p", created_at=1))
    batch = [interaction(f"h{n}", created_at=10 + n, status="resolved") for n in range(5)]
    batch += [interaction("p", created_at=1, status="cancelled"), interaction("q", created_at=2)]
    await backend.interactions.save_many(batch)
    assert ids(await backend.interactions.list("pending")) == ["q"]
    assert (await backend.interactions.query(status="cancelled")).total == 1
    await backend.reopen()
    assert (await backend.interactions.query()).total == 7
    assert ids((await backend.interactions.query(limit=2)).items) == ["h4", "h3"]
