"""Atomic files and AtomicJSONStorage: crash-safe writes, and unreadable files refused rather than emptied."""

from __future__ import annotations

import json
import logging
import os

import pytest
from tinydb import TinyDB

from gui.atomic import atomic_write
from gui.store.errors import CorruptDatabaseError, StoreError
from gui.store.files import keep_aside, quarantine, read_json
from gui.store.storage import AtomicJSONStorage


def temp_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_tinydb_round_trips_through_the_atomic_storage(tmp_path):
    path = tmp_path / "db.json"
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        db.insert({"name": "a"})
        db.table("runs").insert({"n": 1})
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        assert db.all() == [{"name": "a"}]
        assert db.table("runs").all() == [{"n": 1}]


@pytest.mark.parametrize("content", [None, b"", b"  \n"])
def test_a_missing_or_empty_file_opens_as_an_empty_database(tmp_path, content):
    path = tmp_path / "db.json"
    if content is not None:
        path.write_bytes(content)
    assert AtomicJSONStorage(path).read() is None
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        assert db.all() == []


def test_every_write_is_on_disk_when_it_returns(tmp_path):
    path = tmp_path / "db.json"
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        db.insert({"n": 1})
        assert json.loads(path.read_text()) == {"_default": {"1": {"n": 1}}}


def test_writes_are_compact_json(tmp_path):
    path = tmp_path / "db.json"
    AtomicJSONStorage(path).write({"_default": {"1": {"a": [1, 2], "b": "é"}}})
    assert path.read_text() == '{"_default":{"1":{"a":[1,2],"b":"\\u00e9"}}}'


def test_a_write_replaces_the_file_instead_of_rewriting_it_in_place(tmp_path):
    path = tmp_path / "db.json"
    storage = AtomicJSONStorage(path)
    storage.write({"_default": {}})
    before = os.stat(path).st_ino
    storage.write({"_default": {"1": {}}})
    assert os.stat(path).st_ino != before
    assert temp_files(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "db.json"
    storage = AtomicJSONStorage(path)
    storage.write({"_default": {"1": {"n": 1}}})

    def broken_fsync(fd):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        storage.write({"_default": {"1": {"n": 2}}})
    monkeypatch.undo()
    assert storage.read() == {"_default": {"1": {"n": 1}}}
    assert temp_files(tmp_path) == []


def test_an_unserializable_document_fails_before_touching_the_file(tmp_path):
    path = tmp_path / "db.json"
    storage = AtomicJSONStorage(path)
    storage.write({"_default": {}})
    with pytest.raises(TypeError):
        storage.write({"_default": {"1": {"x": object()}}})
    assert storage.read() == {"_default": {}}


def test_temporary_files_left_by_a_killed_writer_are_removed_at_open(tmp_path):
    path = tmp_path / "db.json"
    (tmp_path / ".db.json.abc123.tmp").write_text("{half")
    (tmp_path / ".other.json.abc123.tmp").write_text("{half")
    AtomicJSONStorage(path)
    assert temp_files(tmp_path) == [".other.json.abc123.tmp"]


@pytest.mark.parametrize(
    "garbage",
    [b"{not json", b"\xff\xfe\x00binary", b"[1, 2, 3]", b'"a string"', b'{"_default": [1]}'],
    ids=["truncated", "binary", "list", "string", "table-not-object"],
)
def test_a_file_that_is_not_a_database_raises_corrupt_database_error(tmp_path, garbage):
    path = tmp_path / "db.json"
    path.write_bytes(garbage)
    with pytest.raises(CorruptDatabaseError) as caught:
        TinyDB(path, storage=AtomicJSONStorage).all()
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, StoreError) and caught.value.code == "corrupt-database"
    assert path.read_bytes() == garbage


def test_quarantine_moves_the_file_aside_keeping_its_bytes(tmp_path, caplog):
    path = tmp_path / "db.json"
    path.write_bytes(b"{not json")
    with caplog.at_level(logging.WARNING):
        moved = quarantine(path)
    assert not path.exists()
    assert moved.parent == tmp_path
    assert moved.name.startswith("db.json.corrupt-")
    assert moved.read_bytes() == b"{not json"
    assert str(path) in caplog.text and str(moved) in caplog.text
    with TinyDB(path, storage=AtomicJSONStorage) as db:
        assert db.all() == []


def test_quarantining_twice_in_the_same_second_keeps_both_files(tmp_path):
    path = tmp_path / "db.json"
    path.write_bytes(b"first")
    first = quarantine(path)
    path.write_bytes(b"second")
    second = quarantine(path)
    assert first != second
    assert (first.read_bytes(), second.read_bytes()) == (b"first", b"second")


def test_atomic_write_and_read_json_round_trip_any_object(tmp_path):
    path = tmp_path / "index.json"
    atomic_write(path, b'{"ids":["a","b"]}')
    assert read_json(path) == {"ids": ["a", "b"]}
    assert read_json(tmp_path / "missing.json") is None


def test_keep_aside_keeps_the_bytes_under_another_name_and_leaves_the_file(tmp_path):
    path = tmp_path / "db.json"
    path.write_bytes(b"{damaged")
    kept = keep_aside(path)
    assert kept.name.startswith("db.json.corrupt-") and kept.read_bytes() == b"{damaged"
    atomic_write(path, b"{}")
    assert kept.read_bytes() == b"{damaged" and path.read_bytes() == b"{}"
