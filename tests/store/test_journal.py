"""The hot documents' snapshot and journal: every change on disk as a line, compaction loses nothing,
and a line cut short by a kill is dropped at open with the damage notice, never a crash."""

from __future__ import annotations

import json
import os

import pytest
from contract_support import interaction

from gui.store import journal
from gui.store.journal import JournaledTable, journal_of, stored_documents
from gui.store.open import open_stores


class Crash(Exception):
    """Stands for the process dying at this point."""


def table(folder, **kwargs) -> JournaledTable:
    return JournaledTable(folder / "runs.json", "runs", **kwargs)


def docs(table: JournaledTable) -> dict:
    return {doc_id: dict(doc) for doc_id, doc in table.items()}


def test_a_change_is_one_line_of_the_journal_and_the_snapshot_is_not_rewritten(tmp_path):
    hot = table(tmp_path)
    hot.commit(put={"a": {"n": 1}, "b": {"n": 2}})
    hot.commit(put={"a": {"n": 3}}, remove=["b"])
    assert not (tmp_path / "runs.json").exists()
    lines = journal_of(tmp_path / "runs.json").read_bytes().splitlines()
    assert [json.loads(line) for line in lines] == [{"put": {"a": {"n": 1}, "b": {"n": 2}}},
                                                    {"remove": ["b"], "put": {"a": {"n": 3}}}]
    assert docs(table(tmp_path)) == {"a": {"n": 3}}


def test_compaction_keeps_every_document_and_empties_the_journal(tmp_path):
    hot = table(tmp_path)
    for n in range(50):
        hot.put(f"r{n}", {"n": n, "status": "pending"})
    for n in range(0, 50, 3):
        hot.put(f"r{n}", {"n": n, "status": "resolved"})
    hot.commit(remove=[f"r{n}" for n in range(1, 50, 7)])
    expected = docs(hot)
    hot.compact()
    assert journal_of(tmp_path / "runs.json").stat().st_size == 0
    assert json.loads((tmp_path / "runs.json").read_text())["runs"] == expected
    assert docs(table(tmp_path)) == expected
    assert list(table(tmp_path).ids()) == list(expected)  # in the order first put


def test_a_journal_outgrowing_its_documents_is_compacted_as_housekeeping(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "COMPACT_AT_LEAST", 2_000)
    queued: list = []
    hot = table(tmp_path, later=queued.append)
    for n in range(200):
        hot.put(f"r{n % 5}", {"n": n, "pad": "x" * 50})
    assert len(queued) == 1  # once due, not again while it waits
    before = docs(hot)
    queued.pop()()
    assert journal_of(tmp_path / "runs.json").stat().st_size == 0
    assert docs(hot) == before == docs(table(tmp_path))
    hot.put("r9", {"n": 9})
    assert docs(table(tmp_path)) == {**before, "r9": {"n": 9}}


def test_a_crash_between_the_new_snapshot_and_emptying_the_journal_changes_nothing(tmp_path, monkeypatch):
    hot = table(tmp_path)
    hot.put("a", {"n": 1})
    hot.put("b", {"n": 2})
    hot.commit(remove=["a"])
    monkeypatch.setattr(journal.Journal, "truncate", lambda self: (_ for _ in ()).throw(Crash()))
    with pytest.raises(Crash):
        hot.compact()
    monkeypatch.undo()
    assert journal_of(tmp_path / "runs.json").stat().st_size > 0  # replayed onto a snapshot that has it
    assert docs(table(tmp_path)) == {"b": {"n": 2}}


def test_a_failed_append_leaves_neither_a_line_nor_a_change(tmp_path, monkeypatch):
    hot = table(tmp_path)
    hot.put("a", {"n": 1})
    real = os.write

    def half(fd, data):
        real(fd, bytes(data)[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal.os, "write", half)
    with pytest.raises(OSError):
        hot.put("b", {"n": 2})
    monkeypatch.undo()
    assert docs(hot) == {"a": {"n": 1}}
    hot.put("c", {"n": 3})
    assert docs(table(tmp_path)) == {"a": {"n": 1}, "c": {"n": 3}}


def test_a_document_is_read_as_a_fresh_copy(tmp_path):
    hot = table(tmp_path)
    hot.put("a", {"steps": [1]})
    hot.doc("a")["steps"].append(2)
    hot.all()[0]["steps"].append(3)
    assert hot.doc("a") == {"steps": [1]} and hot.doc("a").doc_id == "a"


def test_what_json_allows_beyond_orjson_and_odd_ids_survive_a_reopen(tmp_path):
    hot = table(tmp_path)
    odd = {"nan": float("inf"), "big": 2**70, "text": "\ud800 é \"q\"\n"}
    hot.put('id "with" quotes\n', odd)
    hot.put("plain", {"n": 1})
    again = table(tmp_path)
    assert again.doc('id "with" quotes\n') == odd and again.doc("plain") == {"n": 1}
    assert docs(table(tmp_path)) == docs(again)  # compacted at that open, read from the snapshot now


async def test_a_torn_last_line_is_dropped_at_open_with_the_damage_notice(tmp_path):
    stores = await open_stores(tmp_path)
    await stores.interactions.save(interaction("kept-1"))
    await stores.interactions.save(interaction("kept-2"))
    stores.writer.close()  # killed: no compaction at close
    path = tmp_path / "interactions.journal"
    whole = path.read_bytes()
    torn = json.dumps({"put": {"lost": interaction("lost").model_dump(mode="json")}}).encode()[:120]
    path.write_bytes(whole + torn)
    from gui.store.lock import release_lock

    release_lock(tmp_path)

    stores = await open_stores(tmp_path)
    try:
        [notice] = stores.notices
        [moved] = [p for p in tmp_path.iterdir() if p.name.startswith("interactions.journal.corrupt-")]
        assert notice == (f"The data file {path} was damaged. 2 entries were saved from it; the original was "
                          f"moved aside to {moved} (nothing was deleted).")
        assert moved.read_bytes() == whole + torn  # the original, byte for byte
        assert [r.interaction_id for r in await stores.interactions.list()] == ["kept-1", "kept-2"]
        assert await stores.interactions.get("lost") is None
    finally:
        stores.close()
    again = await open_stores(tmp_path)  # repaired for good
    try:
        assert again.notices == [] and len(await again.interactions.list()) == 2
    finally:
        again.close()


def test_a_line_that_is_not_a_change_makes_the_journal_damaged_not_the_store_empty(tmp_path):
    from gui.store.errors import CorruptDatabaseError
    from gui.store.recovery import open_store

    hot = table(tmp_path)
    hot.put("a", {"n": 1})
    hot.put("b", {"n": 2})
    path = journal_of(tmp_path / "runs.json")
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + b'{"put": 5}\n' + second)
    with pytest.raises(CorruptDatabaseError, match="line 2"):
        table(tmp_path)
    found: list = []
    store = open_store(tmp_path, "runs", report=found.append)
    assert [d.saved for d in found] == [2]
    assert store.get("a") == {"n": 1} and store.get("b") == {"n": 2}


def test_stored_documents_reads_snapshot_and_journal_without_opening_the_store(tmp_path):
    hot = table(tmp_path)
    hot.put("a", {"n": 1})
    hot.compact()
    hot.put("b", {"n": 2})
    hot.commit(remove=["a"])
    assert stored_documents(tmp_path / "runs.json", "runs") == {"b": {"n": 2}}
